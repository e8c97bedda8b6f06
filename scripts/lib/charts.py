# SPDX-License-Identifier: Apache-2.0
"""Charts of the benchmark matrix (bench.py) and the soak (soak.py), drawn by matplotlib.

Needs Debian's python3-matplotlib, which the scripts install when missing and run with
/usr/bin/python3 (common.sh: spindle_python). Each chart is written once, as <stem>.svg, minified
(svg_min.py: the same picture, a third of matplotlib's bytes; the repository keeps one format per chart,
issue 42). Imported only by the commands that draw, so checks and parsing need no matplotlib.
"""
from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import EngFormatter, FuncFormatter, LogLocator, NullFormatter, PercentFormatter  # noqa: E402

import svg_min  # noqa: E402  (beside this file)

SPINDLE = "#4c78a8"
REFERENCE = "#f58518"
FAILED = "#c0392b"
# SVG text stays text (searchable, sharp); hash salt fixed so the same data writes the same file
plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "spindle", "font.size": 9,
                     "font.family": "DejaVu Sans"})


@dataclass
class Bar:
    """One row of a scenario's chart: the median of the rounds (each figure on its own) and their min–max."""
    label: str
    rps: float | None
    rps_range: tuple[float, float] | None
    per_cpu: float | None
    per_cpu_range: tuple[float, float] | None
    reference: bool
    flagged: bool       # socket errors or non-2xx responses in some round
    noisy: bool         # the rounds' req/s spread more than the noise threshold
    failure: str | None


def save(fig, stem: Path) -> None:
    """stem.svg, minified (no PNG beside it: one format per chart)."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    stem.with_suffix(".svg").write_text(svg_min.minify(buf.getvalue()), encoding="utf-8")


def bar_chart(stem: Path, title: str, subtitle: str, bars: list[Bar], noisy_rule: str) -> None:
    """Two horizontal bar panels sharing the rows: req/s and requests per server CPU-second, each
    bar the median of the rounds with a whisker from the lowest to the highest round (min–max)."""
    rows = max(len(bars), 1)
    fig, axes = plt.subplots(1, 2, sharey=True, figsize=(11, 1.3 + 0.28 * rows + 0.6), squeeze=True)
    fig.suptitle(title, x=0.01, ha="left", fontsize=13, fontweight="bold")
    # wrapped: a waiting scenario's line (route, note, upper bound) is wider than the figure
    fig.text(0.01, 1 - 0.42 / fig.get_figheight(), "\n".join(textwrap.wrap(subtitle, 170)), ha="left", va="top",
             color="#555555")
    ys = list(range(len(bars)))
    panels = (("requests per second", [b.rps for b in bars], [b.rps_range for b in bars]),
              ("requests per server CPU-second", [b.per_cpu for b in bars], [b.per_cpu_range for b in bars]))
    for ax, (name, values, ranges) in zip(axes, panels):
        ax.set_title(name, loc="left", fontweight="bold")
        top = max([r[1] for r in ranges if r] + [v for v in values if v is not None] + [1.0])
        for y, b, v, r in zip(ys, bars, values, ranges):
            if v is None:
                text = b.failure if (b.failure and ax is axes[0]) else ("" if b.failure else "n/a")
                ax.text(top * 0.01, y, shorten(text, 70), va="center", color=FAILED if b.failure else "#888888")
                continue
            ax.barh(y, v, height=0.7, color=REFERENCE if b.reference else SPINDLE,
                    hatch="///" if b.noisy else None, edgecolor="white" if b.noisy else None, linewidth=0)
            if r and r[1] > r[0]:
                ax.errorbar(v, y, xerr=[[v - r[0]], [r[1] - v]], fmt="none", ecolor="#333333", elinewidth=1, capsize=2.5)
            ax.text((r[1] if r else v) + top * 0.01, y, EngFormatter(places=1, sep="")(v), va="center", fontsize=8)
        ax.set_xlim(0, top * 1.18)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
        ax.grid(axis="x", color="#dddddd")
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    axes[0].set_yticks(ys, [b.label + (" *" if b.flagged else "") for b in bars])
    for tick, b in zip(axes[0].get_yticklabels(), bars):
        if b.flagged or b.failure:
            tick.set_color(FAILED)
    axes[0].invert_yaxis()
    legend = [Patch(color=SPINDLE, label="Spindle")]
    if any(b.reference for b in bars):
        legend.append(Patch(color=REFERENCE, label="reference"))
    legend.append(Patch(facecolor="#999999", hatch="///", edgecolor="white", label=f"noisy ({noisy_rule})"))
    notes = "whiskers: min–max of the rounds"
    if any(b.label.endswith("†") for b in bars):
        notes += "; † not steady (warm-up did not settle)"
    if any(b.flagged for b in bars):
        notes += "; * socket errors or non-2xx responses (see summary.md)"
    # the notes on a line of their own under the legend: side by side they overlap on a long noisy rule
    height = fig.get_figheight()
    fig.legend(handles=legend, loc="lower left", ncol=len(legend), frameon=False, bbox_to_anchor=(0.005, 0.25 / height))
    fig.text(0.01, 0.08 / height, notes, ha="left", va="bottom", color="#555555")
    fig.tight_layout(rect=(0, 0.7 / height, 1, 1 - 0.55 / height))
    save(fig, stem)


@dataclass
class Series:
    """One line of a timeline panel."""
    label: str
    points: list[tuple[float, float]]
    dashed: bool = False


def timeline_chart(stem: Path, title: str, subtitle: str, panels: list[tuple[str, str, list[Series]]],
                   shaded: list[tuple[float, float, str, str]], marks: list[float], x_label: str) -> None:
    """Stacked panels over a shared time axis: (title, colour, series) each; `shaded` spans
    (start, end, colour, label) and dashed vertical `marks` are drawn on every panel."""
    fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(11, 1.2 + 2.1 * len(panels)), squeeze=False)
    fig.suptitle(title, x=0.01, ha="left", fontsize=13, fontweight="bold")
    fig.text(0.01, 1 - 0.42 / fig.get_figheight(), subtitle, ha="left", va="top", color="#555555")
    for ax, (name, colour, series) in zip(axes[:, 0], panels):
        ax.set_title(name, loc="left", fontweight="bold")
        for start, end, shade, _ in shaded:
            if end > start:
                ax.axvspan(start, end, color=shade, linewidth=0)
        for t in marks:
            ax.axvline(t, color="#888888", linestyle=(0, (4, 3)), linewidth=1)
        for s in series:
            if s.points:
                xs, ys = zip(*s.points)
                ax.plot(xs, ys, color="#999999" if s.dashed else colour, linewidth=1.2 if s.dashed else 1.8,
                        linestyle=(0, (2, 2)) if s.dashed else "-", label=s.label)
        if len(series) > 1:
            ax.legend(loc="upper left", frameon=False, fontsize=8)
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(EngFormatter(sep=""))
        ax.grid(axis="y", color="#dddddd")
    axes[-1, 0].set_xlabel(x_label)
    legend = [Patch(facecolor=shade, edgecolor="#bbbbbb", label=label) for _, _, shade, label in shaded]
    fig.legend(handles=legend, loc="lower right", ncol=len(legend), frameon=False, bbox_to_anchor=(0.995, 0.0))
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - 0.6 / fig.get_figheight()))
    save(fig, stem)


@dataclass
class WarmupLine:
    """One server start's warm-up: (seconds since it began, % of its scenario's level) points; nan breaks it."""
    label: str
    points: list[tuple[float, float]]
    steady: bool


def warmup_chart(stem: Path, title: str, subtitle: str, lines: list[WarmupLine], band: float = 20.0) -> None:
    """Each start's warm-up windows as a % of each scenario's level (one linear axis for scenarios and rows a
    hundredfold apart), the steady rule's band around 100% shaded; a start that ended not steady is dashed.
    Values are clipped to 0-200%: a cold first window far below its level still shows, at the bottom."""
    fig, ax = plt.subplots(figsize=(11, 5.5))
    fig.suptitle(title, x=0.01, ha="left", fontsize=13, fontweight="bold")
    fig.text(0.01, 1 - 0.42 / fig.get_figheight(), "\n".join(textwrap.wrap(subtitle, 170)), ha="left", va="top",
             color="#555555")
    colours = plt.get_cmap("tab20").colors
    ax.axhspan(100 - band, 100 + band, color="#eeeeee", zorder=0)
    for i, line in enumerate(lines):
        if line.points:
            xs, ys = zip(*line.points)
            ys = [y if y != y else min(max(y, 0.0), 200.0) for y in ys]  # nan (y != y) stays: a break
            ax.plot(xs, ys, color=colours[i % len(colours)], linewidth=1.4, marker=".",
                    linestyle="-" if line.steady else (0, (3, 2)),
                    label=line.label + ("" if line.steady else " † not steady"))
    ax.set_ylim(0, 200)
    ax.yaxis.set_major_formatter(PercentFormatter(decimals=0))
    ax.set_xlabel("seconds since the warm-up began")
    ax.set_ylabel("req/s of a window, % of its scenario's level")
    ax.grid(color="#dddddd")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.55 / fig.get_figheight()))
    save(fig, stem)


@dataclass
class PercentileLine:
    """One server's latency distribution at one offered rate: (percentile 0..100, latency ms) points."""
    label: str
    points: list[tuple[float, float]]
    reference: bool = False
    flagged: bool = False   # the generator fell behind, or errors / non-2xx: see the summary


# HdrHistogram's plot: x is 1/(1-p), log-scaled, so each further "9" gets the same width.
PERCENTILE_TICKS = ((50.0, "50%"), (90.0, "90%"), (99.0, "99%"), (99.9, "99.9%"), (99.99, "99.99%"),
                    (99.999, "99.999%"))


def _inverse_tail(percentile: float) -> float:
    return 1.0 / max(1.0 - percentile / 100.0, 1e-6)


def percentile_chart(stem: Path, title: str, subtitle: str, lines: list[PercentileLine]) -> None:
    """Latency (ms, log scale) against percentile on HdrHistogram's axis, one line per server; the max (100%)
    is drawn as a marker at the right edge, where that axis has no place for it."""
    fig, ax = plt.subplots(figsize=(11, 6))
    fig.suptitle(title, x=0.01, ha="left", fontsize=13, fontweight="bold")
    fig.text(0.01, 1 - 0.42 / fig.get_figheight(), "\n".join(textwrap.wrap(subtitle, 170)), ha="left", va="top",
             color="#555555")
    colours = plt.get_cmap("tab10")
    top = 99.0
    for i, line in enumerate(lines):
        tail = [(p, v) for p, v in line.points if p < 100.0]
        if not tail:
            continue
        top = max(top, tail[-1][0])
        colour = colours(i % 10)
        ax.plot([_inverse_tail(p) for p, _ in tail], [max(v, 1e-3) for _, v in tail], color=colour,
                linewidth=1.8, linestyle=(0, (5, 2)) if line.reference else "-",
                label=line.label + (" *" if line.flagged else ""))
        peak = [v for p, v in line.points if p >= 100.0]
        if peak:
            ax.plot([_inverse_tail(tail[-1][0])], [max(peak[0], 1e-3)], marker="^", color=colour, markersize=5)
    ticks = [(p, text) for p, text in PERCENTILE_TICKS if p <= top + 1e-9]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([_inverse_tail(p) for p, _ in ticks], [text for _, text in ticks])
    ax.minorticks_off()
    ax.set_xlim(1.0, _inverse_tail(top) * 1.3)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g} ms"))
    ax.set_xlabel("percentile")
    ax.set_ylabel("latency from the scheduled send time")
    ax.grid(which="major", color="#dddddd")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.legend(loc="upper left", frameon=False, fontsize=8)
    notes = "\u25b2 max; dashed: reference servers"
    if any(line.flagged for line in lines):
        notes += "; * generator fell behind, errors or non-2xx responses (see the summary)"
    fig.text(0.995, 0.012, notes, ha="right", va="bottom", color="#555555")
    fig.tight_layout(rect=(0, 0.3 / fig.get_figheight(), 1, 1 - 0.55 / fig.get_figheight()))
    save(fig, stem)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
