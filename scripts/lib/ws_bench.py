# SPDX-License-Identifier: Apache-2.0
"""The WebSocket/SSE benchmark's judgements and report (scripts/benchmark-websocket.sh).

    python3 ws_bench.py steady CELL_DIR [--jit-quiet N]   exit 0 when the cell's warm-up is steady
    python3 ws_bench.py report RUN_DIR [--fail-on-errors]  summary.md and summary.tsv from RUN_DIR/raw
                                                           (exit 1 when a cell has no round, or any error)

A cell is one server and one scenario: RUN_DIR/raw/<server>/<scenario>/ holds ws-load's JSON of its
warm-up (warmup.json, several windows) and of each measured round (round-K.json), each with a
.jit.tsv of the server's compiled-method count before and after it and a .jstat.txt of
`jstat -compiler PID 5000` beside it. Figures per round: completions per second of
the measured window, and per server CPU-second (schedstat run time, nanoseconds); the cell's figure
is the median over its rounds.
"""

from __future__ import annotations

import csv
import json
import re
import statistics
import sys
from pathlib import Path

STEADY_SPREAD = 0.10      # the last 3 warm-up runs' per-CPU-second figures within this of their median
STEADY_RISE = 0.05        # ... and not rising run over run by more than this
NOISY_SPREAD = 0.10       # a cell whose rounds spread more than this (of the median) is noisy
GENERATOR_BUSY = 0.90     # the generator's CPU over the window above this: generator-bound
REFERENCE = "NettyServer"
REFERENCES = ("NettyServer", "VertxServer")
UNITS = {"echo": "round trips", "broadcast": "deliveries", "sse": "deliveries"}


def numbered(cell: Path, prefix: str) -> list[Path]:
    def k(p: Path) -> int:
        m = re.search(r"-(\d+)\.json$", p.name)
        return int(m.group(1)) if m else 0
    return sorted(cell.glob(f"{prefix}-*.json"), key=k)


def load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def server_cpu_s(r: dict) -> float | None:
    v = r.get("server_cpu_schedstat_s")
    if v is None:
        v = r.get("server_cpu_ticks_s")
    return v if isinstance(v, (int, float)) and v > 0 else None


def per_cpu_s(r: dict) -> float | None:
    cpu = server_cpu_s(r)
    done = r.get("completions")
    return done / cpu if cpu and isinstance(done, (int, float)) else None


def rate(r: dict) -> float | None:
    done, window = r.get("completions"), r.get("window_s")
    return done / window if isinstance(done, (int, float)) and window else None


def jit(path: Path) -> int | None:
    try:
        rows = dict(line.split("\t", 1) for line in path.read_text().splitlines() if "\t" in line)
        return int(rows["compiled_after"]) - int(rows["compiled_before"])
    except (OSError, KeyError, ValueError):
        return None


def jit_last(path: Path) -> int | None:
    """Methods compiled between the last two samples of `jstat -compiler PID 5000` (its first column)."""
    try:
        counts = [int(line.split()[0]) for line in path.read_text().splitlines() if line.split() and line.split()[0].isdigit()]
    except OSError:
        return None
    return counts[-1] - counts[-2] if len(counts) >= 2 else None


def judge_steady(figures: list[float | None], last_jit: int | None, jit_quiet: int) -> tuple[bool, str]:
    """The steady rule on the warm-up windows' per-CPU-second figures, oldest first."""
    if len(figures) < 3:
        return False, f"{len(figures)} windows (at least 3)"
    last = figures[-3:]
    if any(f is None for f in last):
        return False, "a window of the last 3 has no figure"
    med = statistics.median(last)
    spread = (max(last) - min(last)) / med if med else float("inf")
    shown = " / ".join(f"{f:,.0f}" for f in last)
    if spread > STEADY_SPREAD:
        return False, f"last 3 windows {shown} spread {spread:.0%} (at most {STEADY_SPREAD:.0%})"
    if last[0] < last[1] < last[2] and last[2] / last[0] - 1 > STEADY_RISE:
        return False, f"still rising: last 3 windows {shown}"
    if last_jit is None or last_jit > jit_quiet:
        return False, f"{last_jit} methods compiled in the last 5 s (at most {jit_quiet})"
    return True, f"last 3 windows {shown} (spread {spread:.0%}), {last_jit} methods compiled in the last 5 s"


def cell_steady(cell: Path, jit_quiet: int) -> tuple[bool, str]:
    r = load(cell / "warmup.json")
    if r is None:
        return False, "no warm-up result"
    figures = [per_cpu_s(w) for w in r.get("windows") or []]
    return judge_steady(figures, jit_last(cell / "warmup.jstat.txt"), jit_quiet)


def cmd_steady(argv: list[str]) -> int:
    cell = Path(argv[0])
    jit_quiet = int(argv[argv.index("--jit-quiet") + 1]) if "--jit-quiet" in argv else 50
    ok, why = cell_steady(cell, jit_quiet)
    (cell / "steady.txt").write_text(("steady: " if ok else "not steady: ") + why + "\n")
    return 0 if ok else 1


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def cell_summary(cell: Path) -> dict:
    rounds = [r for p in numbered(cell, "round") if (r := load(p))]
    steady = (cell / "steady.txt").read_text().strip() if (cell / "steady.txt").exists() else "no warm-up"
    per_cpu = [f for r in rounds if (f := per_cpu_s(r)) is not None]
    rates = [f for r in rounds if (f := rate(r)) is not None]
    p99 = [r["latency_us"]["p99"] for r in rounds if isinstance(r.get("latency_us"), dict) and r["latency_us"].get("p99") is not None]
    p50 = [r["latency_us"]["p50"] for r in rounds if isinstance(r.get("latency_us"), dict) and r["latency_us"].get("p50") is not None]
    util = [server_cpu_s(r) / r["window_s"] for r in rounds if server_cpu_s(r) and r.get("window_s")]
    client = [r["client_cpu_s"] / r["window_s"] for r in rounds if r.get("client_cpu_s") is not None and r.get("window_s")]
    med = median(per_cpu)
    spread = (max(per_cpu) - min(per_cpu)) / med if med and len(per_cpu) > 1 else 0.0
    errors: dict[str, int] = {}
    for r in rounds:
        for k, v in (r.get("errors") or {}).items():
            errors[k] = errors.get(k, 0) + int(v)
        for k, v in (r.get("open_failures") or {}).items():
            errors["open: " + k] = errors.get("open: " + k, 0) + int(v)
        if r.get("missing_deliveries"):
            errors["missing deliveries"] = errors.get("missing deliveries", 0) + int(r["missing_deliveries"])
    opened = [f"{r.get('opened')}/{r.get('connections')}" for r in rounds]
    flags = []
    if not steady.startswith("steady:"):
        flags.append("not steady")
    if spread > NOISY_SPREAD:
        flags.append("noisy")
    if client and max(client) > GENERATOR_BUSY:
        flags.append("generator-bound")
    return {
        "rounds": len(rounds), "rate": median(rates), "per_cpu_s": med, "spread": spread,
        "per_cpu_rounds": per_cpu, "p50_us": median(p50), "p99_us": median(p99),
        "server_util": median(util), "client_util": median(client), "errors": errors,
        "opened": opened[0] if opened and len(set(opened)) == 1 else ", ".join(opened),
        "steady": steady, "flags": flags,
    }


def read_meta(run: Path) -> list[tuple[str, str]]:
    rows = []
    for line in (run / "meta.tsv").read_text().splitlines() if (run / "meta.tsv").exists() else []:
        if "\t" in line:
            k, v = line.split("\t", 1)
            rows.append((k, v))
    return rows


def fmt(v, spec: str = ",.0f") -> str:
    return "-" if v is None else format(v, spec)


def write_report(run: Path, fail_on_errors: bool = False) -> int:
    meta = read_meta(run)
    scenarios = [v.split("|") for k, v in meta if k == "scenario"]
    servers = (run / "servers").read_text().split() if (run / "servers").exists() else []
    raw = run / "raw"
    lines = ["# WebSocket and server-sent events", ""]
    lines.append("Run: " + ", ".join(f"{k} `{v}`" for k, v in meta if k in ("command", "commit", "started", "jdk", "pin_server", "pin_client")) + ".")
    lines.append("")
    lines.append("Figures are medians over the measured rounds; per CPU-s = completions in the window / the server's "
                 "CPU time in it (schedstat, ns). Flags: noisy = rounds spread over "
                 f"{NOISY_SPREAD:.0%} of the median (its ratios are not a finding); generator-bound = ws-load "
                 f"busy over {GENERATOR_BUSY:.0%} of the window; not steady = the warm-up rule did not hold.")
    tsv = [["scenario", "server", "rounds", "rate_per_s", "per_server_cpu_s", "vs_netty", "spread", "p50_us", "p99_us",
            "server_cpu_util", "client_cpu_util", "opened", "errors", "flags", "steady"]]
    failed = 0
    for sc in scenarios:
        name, mode = sc[0], sc[1]
        unit = UNITS.get(mode, "completions")
        cells = {s: cell_summary(raw / s / name) for s in servers if (raw / s / name).is_dir()}
        ref = cells.get(REFERENCE, {}).get("per_cpu_s")
        lines += ["", f"## {name}", "", sc[-1] if len(sc) > 5 else "", ""]
        lines.append(f"| server | {unit}/s | {unit} per server CPU-s | vs {REFERENCE} | rounds (per CPU-s) | p50 | p99 | server CPU | ws-load CPU | opened | errors | flags |")
        lines.append("|---|---:|---:|---:|---|---:|---:|---:|---:|---|---|---|")
        for s, c in cells.items():
            vs = c["per_cpu_s"] / ref if ref and c["per_cpu_s"] else None
            errs = ", ".join(f"{k} {v}" for k, v in sorted(c["errors"].items())) or "0"
            if c["rounds"] == 0 or (fail_on_errors and c["errors"]):
                failed += 1
            lines.append(f"| {s} | {fmt(c['rate'])} | {fmt(c['per_cpu_s'])} | {fmt(vs, '.2f')}x | "
                         f"{' / '.join(fmt(f) for f in c['per_cpu_rounds'])} | {fmt(c['p50_us'] and c['p50_us'] / 1000, '.2f')} ms | "
                         f"{fmt(c['p99_us'] and c['p99_us'] / 1000, '.2f')} ms | {fmt(c['server_util'], '.0%')} | "
                         f"{fmt(c['client_util'], '.0%')} | {c['opened']} | {errs} | {', '.join(c['flags']) or '-'} |")
            tsv.append([name, s, c["rounds"], fmt(c["rate"], ".1f"), fmt(c["per_cpu_s"], ".1f"), fmt(vs, ".3f"),
                        fmt(c["spread"], ".3f"), fmt(c["p50_us"], ".0f"), fmt(c["p99_us"], ".0f"),
                        fmt(c["server_util"], ".3f"), fmt(c["client_util"], ".3f"), c["opened"], errs,
                        ",".join(c["flags"]), c["steady"]])
        lines.append("")
        lines.append("Warm-up: " + "; ".join(f"{s} {c['steady']}" for s, c in cells.items()))
    (run / "summary.md").write_text("\n".join(lines) + "\n")
    with (run / "summary.tsv").open("w", newline="") as f:
        csv.writer(f, delimiter="\t", lineterminator="\n").writerows(tsv)
    print((run / "summary.md").read_text())
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "steady":
        return cmd_steady(argv[1:])
    if len(argv) in (2, 3) and argv[0] == "report" and argv[2:] in ([], ["--fail-on-errors"]):
        run = Path(argv[1])
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import raw_archive
        with raw_archive.extracted(run):
            return write_report(run, fail_on_errors=argv[2:] == ["--fail-on-errors"])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
