#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every benchmark figure quoted in prose, recomputed from its run's raw data (docs/claims.tsv).

  claims.py [--claims FILE] [--root DIR] [--file QUOTING=COPY]... [-v]

Each row of the claims file names a figure as it is quoted (file, text), the run it comes from, the
row (server) and cell (scenario) it is of, the statistic and how it is formatted; the columns are
described in docs/benchmarks.md ("Quoting a figure"). For every claim the check
  - fails when the run directory, or both its raw.tar.gz and raw/, are missing;
  - recomputes the statistic from raw: the matrix runs through bench.Report (the wrk and h2load outputs
    under raw/ and the CPU samples of measurements.tsv, parsed as the summaries are), the WebSocket
    runs through ws_bench.cell_summary and the idle runs through ws_idle.load (their raw/ JSON);
    summary.csv and summary.md are never read;
  - formats it the claim's way and fails when that differs from the quoted text, or when the quoted
    text (with its context, when given) is not in the quoting file (whitespace runs, line breaks
    included, count as one space).
Exit 0 when every claim holds, 1 otherwise (one line per failure), 2 on a malformed claims file.
--file QUOTING=COPY reads the quoting file QUOTING (as named in the claims file) from COPY instead
(the unit test edits a copy). Standard library only.
"""
from __future__ import annotations

import argparse
import ast
import csv
import decimal
import math
import os
import re
import string
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import archived  # noqa: E402
import bench  # noqa: E402
import hostile_memory  # noqa: E402
import raw_archive  # noqa: E402
import ws_bench  # noqa: E402

ROOT = HERE.parent.parent
CLAIMS = ROOT / "docs" / "claims.tsv"
COLUMNS = ("id", "file", "quoted", "context", "run", "row", "cell", "stat", "format", "known")


class ClaimError(Exception):
    """A claim that cannot be recomputed (missing run, row, cell or figure)."""


@dataclass
class Claim:
    line: int
    id: str
    file: str
    quoted: str
    context: str
    run: str
    rows: list
    cells: list
    stat: str
    format: str
    known: str  # a known mismatch: the recomputed text, while the prose still quotes another

    def where(self) -> str:
        return f"{self.id} ({self.file}: {self.quoted!r}; run {self.run}, row {','.join(self.rows) or '-'}, " \
               f"cell {','.join(self.cells) or '-'})"


def read_claims(path: Path) -> list[Claim]:
    claims, seen = [], set()
    with path.open(newline="", encoding="utf-8") as f:
        lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
    reader = csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise ValueError(f"{path}: header must be {' '.join(COLUMNS)}, is {reader.fieldnames}")
    for n, r in enumerate(reader, start=2):
        if None in r or any(r[c] is None for c in COLUMNS):
            raise ValueError(f"{path}: claim {n - 1} ({r.get('id')}): not {len(COLUMNS)} tab-separated columns")
        for c in ("id", "file", "quoted", "run", "stat", "format"):
            if not r[c].strip():
                raise ValueError(f"{path}: claim {r['id'] or n - 1}: empty {c}")
        if r["id"] in seen:
            raise ValueError(f"{path}: claim id {r['id']} twice")
        seen.add(r["id"])
        split = lambda s: [x.strip() for x in s.split(",") if x.strip()]  # noqa: E731
        claims.append(Claim(n, r["id"], r["file"], r["quoted"], r["context"], r["run"], split(r["row"]),
                            split(r["cell"]), r["stat"], r["format"], r["known"]))
    return claims


# --- the runs, read from raw ------------------------------------------------------------------------

class MatrixRun:
    """A benchmark-servers.sh run: bench.Report over raw/ (unpacked into a scratch copy) and the TSVs the
    script wrote beside it (measurements.tsv: the raw output of each round and its CPU ticks)."""

    def __init__(self, run: Path, scratch: Path):
        copy = scratch / run.name
        copy.mkdir()
        for p in run.iterdir():
            if p.name not in (raw_archive.RAW, "charts"):
                os.symlink(p.resolve(), copy / p.name)
        if (run / raw_archive.RAW).is_dir():
            os.symlink((run / raw_archive.RAW).resolve(), copy / raw_archive.RAW)
        else:
            raw_archive.unpack(copy)
        self.report = bench.Report(copy)
        self.scenarios = {sc["name"]: sc for sc in self.report.scenarios}

    def cell(self, row: str, cell: str) -> bench.Cell:
        c = self.report.cells.get((row, cell))
        if c is None:
            known = "rows " + ", ".join(s["name"] for s in self.report.servers) if not any(
                s["name"] == row for s in self.report.servers) else "cells " + ", ".join(self.scenarios)
            raise ClaimError(f"no cell ({row}, {cell}) in the run ({known})")
        return c

    def functions(self) -> dict:
        def figure(getter):
            def f(row: str, cell: str):
                c = self.cell(row, cell)
                v = getter(c)
                if v is None:
                    raise ClaimError(f"({row}, {cell}) has no such figure (rounds completed: {len(c.rounds)})")
                return v
            return f

        def bound(c: bench.Cell):
            b = bench.upper_bound(self.scenarios[c.scenario])
            if b is None:
                raise ClaimError(f"{c.scenario} has no upper bound (it does not wait)")
            return b

        def per_round_cpu_ms(c: bench.Cell):
            return c.cpu_ms_values()  # server CPU ms per good (2xx/3xx) request, per round

        def waiting(getter):
            def f(c: bench.Cell):
                bound(c)
                return getter(c)
            return f

        return {
            "rps": figure(lambda c: c.rps),  # median req/s of the rounds
            "rps_min": figure(lambda c: c.rps_range and c.rps_range[0]),
            "rps_max": figure(lambda c: c.rps_range and c.rps_range[1]),
            "per_cpu": figure(lambda c: c.req_per_cpu_s),  # median requests per server CPU-second
            "per_cpu_min": figure(lambda c: c.per_cpu_range and c.per_cpu_range[0]),
            "per_cpu_max": figure(lambda c: c.per_cpu_range and c.per_cpu_range[1]),
            "cpu_ms": figure(lambda c: c.ms_cpu_per_request),  # median server CPU ms per request
            "cpu_us": figure(lambda c: c.ms_cpu_per_request and 1000 * c.ms_cpu_per_request),
            "cpu_ms_min": figure(lambda c: bench.range_of(per_round_cpu_ms(c)) and bench.range_of(per_round_cpu_ms(c))[0]),
            "cpu_ms_max": figure(lambda c: bench.range_of(per_round_cpu_ms(c)) and bench.range_of(per_round_cpu_ms(c))[1]),
            "cpu_s": figure(lambda c: c.cpu_s),  # median server CPU-seconds of a round
            "bound": figure(bound),
            "bound_pct": figure(lambda c: c.rps and 100 * c.rps / bound(c)),
            "bound_pct_min": figure(lambda c: c.rps_range and 100 * c.rps_range[0] / bound(c)),
            "bound_pct_max": figure(lambda c: c.rps_range and 100 * c.rps_range[1] / bound(c)),
            # Little's-law goodput of a waiting cell (requests in flight ÷ mean latency × 2xx/3xx share), as req/s
            # and as % of the bound, and the resolution of its "% of bound" (one wait's worth of requests, %)
            "little_rps": figure(waiting(lambda c: self.report.little_rps(c))),
            "little_pct": figure(waiting(lambda c: (v := self.report.little_rps(c)) and 100 * v / bound(c))),
            "bound_resolution_pct": figure(waiting(lambda c: (v := self.report.bound_resolution(c)) and 100 * v)),
            "latency_avg_ms": figure(lambda c: c.latency_avg_ms),
            "rounds": figure(lambda c: len(c.rounds)),  # rounds that completed requests
            "non2xx": figure(lambda c: c.total("non2xx")),  # totals over every round
            "failed": figure(lambda c: c.total("failed")),
            "timeouts": figure(lambda c: c.total("timeout")),
            "socket_errors": figure(lambda c: sum(e[1].socket_errors for e in c.rounds)
                                    + sum(r.socket_errors for _, r in c.failed_rounds)),
            # the run's server starts (starts.tsv): how many, how many steady; a row's warm-up seconds (its
            # longest start's); these take no cell
            "starts": lambda row, cell: len(self.report.starts),
            "starts_steady": lambda row, cell: sum(r.get("steady") == "1" for r in self.report.starts.values()),
            "warmup_s": lambda row, cell: self.warmup_s(row),
            "trend_cells": lambda row, cell: len(self.report.trend_cells()),
            "round1_lowest": lambda row, cell: sum(c.round1_lowest for c in self.report.trend_cells()),
        }

    def warmup_s(self, row: str) -> float:
        values = [float(r["warmup_s"]) for (server, _), r in self.report.starts.items()
                  if server == row and r.get("warmup_s")]
        if not values:
            raise ClaimError(f"no start of {row} in starts.tsv")
        return max(values)


class WebSocketRun:
    """A benchmark-websocket.sh run: raw/<server>/<scenario>/round-N.json, summarised by ws_bench.cell_summary."""

    def __init__(self, run: Path, scratch: Path):
        self.raw = _raw_dir(run, scratch)
        self.cache: dict = {}

    def summary(self, row: str, cell: str) -> dict:
        if (row, cell) not in self.cache:
            d = self.raw / row / cell
            if not d.is_dir():
                raise ClaimError(f"no cell raw/{row}/{cell} in the run")
            self.cache[(row, cell)] = ws_bench.cell_summary(d)
        return self.cache[(row, cell)]

    def functions(self) -> dict:
        def figure(key, pick=None):
            def f(row: str, cell: str):
                s = self.summary(row, cell)
                v = s.get(key) if pick is None else pick(s.get(key))
                if v is None:
                    raise ClaimError(f"({row}, {cell}) has no {key}")
                return v
            return f
        return {"per_cpu": figure("per_cpu_s"), "rate": figure("rate"), "p50_us": figure("p50_us"),
                "p99_us": figure("p99_us"), "spread": figure("spread"),
                "per_cpu_min": figure("per_cpu_rounds", lambda v: min(v) if v else None),
                "per_cpu_max": figure("per_cpu_rounds", lambda v: max(v) if v else None)}


class IdleRun:
    """A websocket-idle.sh run (WebSockets or event streams): raw/<server>/client.json, read by ws_idle.load."""

    def __init__(self, run: Path, scratch: Path):
        import ws_idle  # only here: it is a load generator too (asyncio, subprocess)
        self.load = ws_idle.load
        self.raw = _raw_dir(run, scratch)

    def functions(self) -> dict:
        def figure(key):
            def f(row: str, cell: str):
                d = self.raw / row
                if not d.is_dir():
                    raise ClaimError(f"no raw/{row} in the run")
                v = self.load(d).get(key)
                if v is None:
                    raise ClaimError(f"{row} has no {key}")
                return v
            return f
        return {"heap_per_conn": figure("heap_per_conn"), "rss_per_conn": figure("rss_per_conn"),
                "idle_cpu_pct": figure("idle_cpu_pct")}


class SeedRun:
    """A part of a reproduce-sources.sh run (results/seed/<run>/<NNN>/: section.md beside raw.tar.gz): its `ab`
    outputs. Row = an output's path under raw/ without ".ab" (e.g. webflux-plaintext), or the stem of runs
    <stem>-run<N>.ab (e.g. MultiLoopServer/static-timed-c8): a figure is then the median of the runs."""

    # hostile_memory's ab fields (rps, complete, failed, non2xx) and the two timings a write-up quotes
    AB = {**hostile_memory.AB_FIELDS, "ms_mean": r"^Time per request:\s+([\d.]+) \[ms\] \(mean\)$",
          "seconds": r"^Time taken for tests:\s+([\d.]+) seconds"}

    def __init__(self, run: Path, scratch: Path):
        self.raw = _raw_dir(run, scratch)

    def values(self, row: str, key: str) -> list[float]:
        files = [self.raw / f"{row}.ab"] if (self.raw / f"{row}.ab").is_file() else \
            sorted(self.raw.glob(f"{row}-run*.ab"))
        if not files:
            raise ClaimError(f"no raw/{row}.ab nor raw/{row}-run<N>.ab in the part")
        out = []
        for f in files:
            m = re.search(self.AB[key], f.read_text(encoding="utf-8", errors="replace"), re.M)
            if not m:
                raise ClaimError(f"{f.name}: ab printed no {key}")
            out.append(float(m.group(1)))
        return out

    def functions(self) -> dict:
        def figure(key, pick):
            def f(row: str, cell: str):
                return pick(self.values(row, key))
            return f
        fs = {}
        for key in self.AB:
            fs[key] = figure(key, bench.median_of)
            fs[key + "_min"] = figure(key, min)
            fs[key + "_max"] = figure(key, max)
        return fs


def _raw_dir(run: Path, scratch: Path) -> Path:
    if (run / raw_archive.RAW).is_dir():
        return run / raw_archive.RAW
    copy = scratch / run.name
    copy.mkdir()
    os.symlink((run / raw_archive.ARCHIVE).resolve(), copy / raw_archive.ARCHIVE)
    raw_archive.unpack(copy)
    return copy / raw_archive.RAW


def open_run(run: Path, scratch: Path, root: Path | None = None):
    """The run's reader; a run that left the tree for git history (results/archived.md) restored into scratch."""
    if not run.is_dir() and root is not None:
        rel = run.relative_to(root).as_posix()
        if archived.archived_entry(rel, root):
            try:
                run = archived.restore(rel, scratch / "archived", root)
            except archived.ArchiveError as e:
                raise ClaimError(str(e)) from None
    if not run.is_dir():
        raise ClaimError(f"run directory {run} missing")
    if not (run / raw_archive.ARCHIVE).is_file() and not (run / raw_archive.RAW).is_dir():
        raise ClaimError(f"{run}: no {raw_archive.ARCHIVE} (nor raw/): the figure cannot be recomputed")
    if (run / "measurements.tsv").is_file():
        return MatrixRun(run, scratch)
    if (run / "section.md").is_file():
        return SeedRun(run, scratch)
    if (run / "summary.tsv").is_file() and (run / "servers").is_file():
        kind = (run.parent.name or "")
        return IdleRun(run, scratch) if kind.endswith("-idle") else WebSocketRun(run, scratch)
    raise ClaimError(f"{run}: not a layout the check reads (measurements.tsv, or a websocket run's servers)")


# --- expressions: the statistic and its format ----------------------------------------------------

_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b}
def half_up(x: float, digits: int = 0) -> float:
    """x rounded half away from zero at `digits` decimals, on its shortest decimal form (41.25 -> 41.3, where
    format() rounds the binary value half to even: 41.2); for figures printed with fewer decimals than raw has."""
    q = decimal.Decimal(1).scaleb(-digits)
    return float(decimal.Decimal(repr(x)).quantize(q, rounding=decimal.ROUND_HALF_UP))


_BUILTINS = {"round": round, "abs": abs, "min": min, "max": max, "up": half_up}


def evaluate(expr: str, names: dict, functions: dict, row: str | None = None, cell: str | None = None):
    """A small arithmetic expression: numbers, names, + - * / **, round/abs/min/max, and the run's figures
    as f() (the claim's row and cell), f('Row') (another row, same cell) or f('Row', 'cell')."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            args = [ev(a) for a in node.args]
            if node.func.id in _BUILTINS:
                return _BUILTINS[node.func.id](*args)
            if node.func.id in functions:
                if len(args) > 2 or not all(isinstance(a, str) for a in args):
                    raise ClaimError(f"{node.func.id}() takes at most a row and a cell, as strings")
                r = args[0] if args else row
                c = args[1] if len(args) > 1 else cell
                return functions[node.func.id](r, c)
            raise ClaimError(f"unknown figure {node.func.id}() (this run has {', '.join(sorted(functions))})")
        raise ClaimError(f"not allowed in a claim expression: {ast.dump(node)[:60]}")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise ClaimError(f"bad expression {expr!r}: {e.msg}") from None
    return ev(tree)


def format_value(template: str, names: dict) -> str:
    """The template's literal text with every {expression:spec} evaluated on names and formatted."""
    out = []
    for literal, field_expr, spec, conversion in string.Formatter().parse(template):
        out.append(literal)
        if field_expr is None:
            continue
        if conversion:
            raise ClaimError(f"no !{conversion} in a format")
        value = evaluate(field_expr, names, {})
        # an infinite figure (CPU per request of a round that answered only errors) reads as ∞
        out.append(("∞" if value > 0 else "-∞") if isinstance(value, float) and math.isinf(value)
                   else format(value, spec or ""))
    return "".join(out)


def template_names(template: str) -> set:
    found = set()
    for _, field_expr, _, _ in string.Formatter().parse(template):
        if field_expr:
            found |= {n.id for n in ast.walk(ast.parse(field_expr, mode="eval")) if isinstance(n, ast.Name)}
    return found


def recompute(claim: Claim, run) -> str:
    """The claim's figure, as the claim formats it. One row and cell: {v}. Several (every row x cell): a
    format of {lo} and {hi} gets the least and greatest value; a format of {v} must give all of them the
    same text (else each distinct text is returned, joined by ' | ', which matches no quotation)."""
    functions = run.functions()
    pairs = [(r, c) for r in (claim.rows or [None]) for c in (claim.cells or [None])]
    values = [evaluate(claim.stat, {}, functions, r, c) for r, c in pairs]
    used = template_names(claim.format)
    if used & {"lo", "hi"}:
        return format_value(claim.format, {"lo": min(values), "hi": max(values), "n": len(values)})
    texts = []
    for v in values:
        t = format_value(claim.format, {"v": v})
        if t not in texts:
            texts.append(t)
    return " | ".join(texts)


# --- the check --------------------------------------------------------------------------------------

def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def overview_failures(claim: Claim, run, text: str) -> list[str]:
    """A generated table (stat `overview`): every line of the run's overview, as bench.py writes it into
    results/README.md from raw, is a line of the quoting file."""
    if not isinstance(run, MatrixRun):
        raise ClaimError("`overview` is of a matrix run")
    lines = set(text.splitlines())
    return [f"{claim.where()}: generated line not in {claim.file} as recomputed from raw: {line!r}"
            for line in run.report.overview("##", spread=True) if line not in lines]


WARNINGS: list[str] = []  # the known mismatches of the last check()


def check(claims: list[Claim], root: Path, overrides: dict | None = None, verbose: bool = False) -> list[str]:
    overrides = overrides or {}
    failures, texts, raw_texts, runs = [], {}, {}, {}
    warnings = WARNINGS
    warnings.clear()
    with tempfile.TemporaryDirectory(prefix="claims-") as scratch_dir:
        scratch = Path(scratch_dir)
        for claim in claims:
            path = Path(overrides.get(claim.file) or root / claim.file)
            if claim.file not in texts:
                texts[claim.file] = squash(path.read_text(encoding="utf-8")) if path.is_file() else None
            text = texts[claim.file]
            quoted, context = squash(claim.quoted), squash(claim.context)
            if text is None:
                failures.append(f"{claim.where()}: quoting file {path} missing")
                continue
            if context and quoted not in context:
                failures.append(f"{claim.where()}: the context {claim.context!r} does not hold the quoted text")
                continue
            if (context or quoted) not in text:
                failures.append(f"{claim.where()}: {('context ' + repr(claim.context)) if context else 'quoted text'} "
                                f"not found in {claim.file} (edited by hand?)")
            try:
                if claim.run not in runs:
                    sub = scratch / f"run{len(runs)}"
                    sub.mkdir()
                    try:
                        runs[claim.run] = open_run(root / claim.run, sub, root)
                    except ClaimError as e:
                        runs[claim.run] = e
                    except Exception as e:  # noqa: BLE001  (reading a run failed: its claims fail, the check goes on)
                        runs[claim.run] = ClaimError(f"cannot read the run: {type(e).__name__}: {e}")
                run = runs[claim.run]
                if isinstance(run, ClaimError):
                    raise run
                if claim.stat == "overview":
                    failures += overview_failures(claim, run, raw_texts.setdefault(claim.file, path.read_text(encoding="utf-8")))
                    continue
                got = recompute(claim, run)
            except ClaimError as e:
                failures.append(f"{claim.where()}: {e}")
                continue
            except (ArithmeticError, TypeError, ValueError) as e:
                failures.append(f"{claim.where()}: cannot compute {claim.stat!r}: {type(e).__name__}: {e}")
                continue
            if claim.known:
                if got == claim.quoted:
                    failures.append(f"{claim.where()}: now quoted as recomputed ({got!r}): clear its `known` column")
                elif got != claim.known:
                    failures.append(f"{claim.where()}: known mismatch recorded as {claim.known!r}, recomputed {got!r}")
                else:
                    warnings.append(f"{claim.where()}: quoted {claim.quoted!r}, recomputed from raw {got!r} "
                                    "(known mismatch, docs/claims.tsv)")
            elif got != claim.quoted:
                failures.append(f"{claim.where()}: quoted {claim.quoted!r}, recomputed from raw {got!r} "
                                f"({claim.stat} as {claim.format})")
            elif verbose:
                print(f"ok    {claim.id}: {claim.quoted}")
    return failures


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description="Recompute every quoted benchmark figure from raw (docs/claims.tsv).")
    p.add_argument("--claims", default=str(CLAIMS))
    p.add_argument("--root", default=str(ROOT), help="the tree the claims' files and runs are relative to")
    p.add_argument("--file", action="append", default=[], metavar="QUOTING=COPY",
                   help="read the quoting file QUOTING from COPY")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    try:
        claims = read_claims(Path(args.claims))
    except (OSError, ValueError) as e:
        print(f"claims: {e}", file=sys.stderr)
        return 2
    overrides = dict(f.split("=", 1) for f in args.file)
    failures = check(claims, Path(args.root), overrides, args.verbose)
    for w in WARNINGS:
        print(f"known {w}", file=sys.stderr)
    for f in failures:
        print(f"FAIL  {f}", file=sys.stderr)
    failed = {f.split(" ", 1)[0] for f in failures}
    print(f"claims: {len(claims)} figures of {len({c.run for c in claims})} runs recomputed from raw: "
          f"{len(claims) - len(failed) - len(WARNINGS)} quoted as recomputed, {len(WARNINGS)} known mismatches"
          + (f", {len(failed)} FAILED" if failed else ""), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
