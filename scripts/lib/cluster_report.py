# SPDX-License-Identifier: Apache-2.0
"""summary.md (on stdout) and a chart for a scripts/cluster.sh run directory.

    /usr/bin/python3 scripts/lib/cluster_report.py RUN_DIR > RUN_DIR/summary.md
"""
from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import raw_archive

TOPOLOGY = """```
 client ns            bridge ns "sw"            lb ns                         app ns (one per instance)
 [wrk, checks] --veth-- [ br0 ] --veth-- [nginx :80 all / :8081 app1   ] --> [app1 10.214.0.11:8080]
 10.214.0.2                 |            [HAProxy :81 all / :8082 app1 ]     [app2 10.214.0.12:8080] ...
                            +------------------------------------------------^ direct rows: client -> app1
```"""


def num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def fmt(x: float | None, places: int = 0) -> str:
    return "–" if x is None else f"{x:,.{places}f}"


def conformance(run: Path) -> dict[str, tuple[int, int, list[tuple[str, str]]]]:
    """file stem (server-balancer) -> passed, passed+failed, failed cases with their messages"""
    results = {}
    for f in sorted((run / "conformance").glob("*.tsv")):
        passed, failed = 0, []
        with f.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row["status"] == "passed":
                    passed += 1
                elif row["status"] == "failed":
                    failed.append((row["case"], row["message"]))
        results[f.stem] = (passed, passed + len(failed), failed)
    return results


def socket_errors(raw: Path) -> str:
    """wrk's socket errors by kind, from its raw output: "connect 0, read 3, write 0, timeout 0"."""
    try:
        m = re.search(r"Socket errors: (connect \d+, read \d+, write \d+, timeout \d+)", raw.read_text(encoding="utf-8"))
    except OSError:
        return "–"
    return m.group(1) if m else "none"


def balancer_saw(run: Path, r: dict[str, str]) -> str:
    """What the balancer counted of the stop: HAProxy's stats of app2 and its 5xx, the upstream errors nginx logged."""
    stem = run / "raw" / f"{r['server']}-{r['topology']}"
    if r["balancer"] == "haproxy":
        try:
            with Path(f"{stem}-haproxy-stats.csv").open(encoding="utf-8") as fh:
                stats = {(row["# pxname"], row["svname"]): row for row in csv.DictReader(fh)}
        except (OSError, KeyError):
            return "–"
        app2, front = stats.get(("checked", "app2")), stats.get(("checked", "FRONTEND"))
        if not app2 or not front:
            return "–"
        return (f"app2: {app2['econ'] or 0} connect errors, {app2['wretr'] or 0} retries, {app2['eresp'] or 0} response "
                f"errors; {front['hrsp_5xx'] or 0} × 5xx sent")
    try:
        lines = Path(f"{stem}-nginx-errors.txt").read_text(encoding="utf-8").splitlines()
    except OSError:
        return "–"
    errors = [line for line in lines if "[error]" in line]
    refused = sum("Connection refused" in line for line in errors)
    return f"{refused} connects refused, {len(errors) - refused} other upstream errors (nginx's error log)"


def stops(run: Path, rows: list[dict[str, str]]) -> list[str]:
    """The section of the stop rows: one of two instances stopped under load, without and with a drain delay."""
    if not rows:
        return []
    lines = ["## Stopping an instance under load", "",
             "Two fresh instances (app1, app2) behind a fresh balancer (HAProxy :83 or nginx :84, both over the two), "
             "wrk on GET /plaintext through it; 2 s in, app2 gets "
             "SIGTERM (its drain delay from `-Dspindle.drainDelayMs`). With no delay, the listener closes at "
             "SIGTERM and in-flight and idle connections drain; with one, readiness (`/health/ready`) answers 503 "
             "at once while app2 serves on for the delay, then drains. HAProxy health-checks the instances "
             "(`option httpchk GET /health/ready`, `inter 500ms fall 1 rise 2`, default retries: 3 on the same "
             "server); nginx has passive checks only (`max_fails=1`, `proxy_next_upstream error timeout`). "
             "*Failed* = wrk's socket errors + non-2xx answers: what the clients saw of the stop. "
             "*SIGTERM to exit*: until app2's process ended. One run per row: a count, not a rate.", "",
             "| server | balancer | drain delay | requests | req/s | p99 ms | failed | non-2xx | socket errors | "
             "SIGTERM to exit | the balancer's count |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|---:|---|"]
    for r in rows:
        raw = run / "raw" / f"{r['server']}-{r['topology']}.txt"
        lines.append("| " + " | ".join([
            r["server"], r["balancer"], f"{r.get('drain_delay_ms', '–')} ms", fmt(num(r["requests"])), fmt(num(r["req_s"])),
            r["p99_ms"], r.get("failed", "–"), r["non2xx"], socket_errors(raw), f"{r.get('stop_s', '–')} s",
            balancer_saw(run, r)]) + " |")
    lines.append("")
    return lines


def main(run: Path) -> int:
    with (run / "measurements.tsv").open(encoding="utf-8") as fh:
        every = list(csv.DictReader(fh, delimiter="\t"))
    stop_rows = [r for r in every if r["topology"].startswith("stop-")]
    rows = [r for r in every if not r["topology"].startswith("stop-")]
    lines = [f"# Spindle behind load balancers: run {run.name}", "",
             "N instances of a server, each in a network namespace of its own, behind nginx and HAProxy "
             "(upstream keep-alive) in another, wrk in a client namespace; every namespace on one bridge, "
             "all on this machine's CPUs. Machine, versions and the balancers' configs: "
             "[environment.md](environment.md); raw wrk output and logs: raw/ ([raw.tar.gz](raw.tar.gz) once under results/).", "", TOPOLOGY, "",
             "Columns: req/s and p99 from wrk; *vs direct* = req/s ÷ the same server's direct row; server CPU = "
             "utime+stime of every instance in the row, balancer CPU = the balancer's processes; req/CPU-s counts "
             "both; *conns opened* = TCP connections the instances accepted during the measurement (after a 2 s "
             "warm-up through the same path; wrk's own in the direct row), *open after* = connections to the "
             "instances still open once wrk stopped (the balancer's idle pool). A balancer that reuses its "
             "upstream connections opens few or none while it serves the measurement's requests.", ""]
    servers = list(dict.fromkeys(r["server"] for r in rows))
    bars = []
    for server in servers:
        mine = [r for r in rows if r["server"] == server]
        direct = next((num(r["req_s"]) for r in mine if r["topology"] == "direct"), None)
        lines += [f"## {server}", "",
                  "| topology | instances | req/s | vs direct | p99 ms | socket errors | non-2xx | server CPU-s | "
                  "balancer CPU-s | req/CPU-s (server+balancer) | conns opened | open after |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in mine:
            rps, reqs = num(r["req_s"]), num(r["requests"])
            cpu = (num(r["server_cpu_s"]) or 0) + (num(r["balancer_cpu_s"]) or 0)
            lines.append("| " + " | ".join([
                r["topology"], r["instances"], fmt(rps),
                f"{rps / direct:.2f}" if rps and direct else "–", r["p99_ms"], r["socket_errors"], r["non2xx"],
                r["server_cpu_s"], r["balancer_cpu_s"], fmt(reqs / cpu if reqs and cpu else None),
                r["upstream_connections"], r["upstream_open"]]) + " |")
            server_cpu = num(r["server_cpu_s"])
            bars.append((f"{server} {r['topology']}", rps, reqs / server_cpu if reqs and server_cpu else None))
        lines.append("")
    lines += stops(run, stop_rows)
    checks = conformance(run)
    if checks:
        lines += ["## Conformance through the balancers", "",
                  "The shared conformance cases (scripts/conformance-check.sh) sent through each balancer: "
                  "what a client behind it sees. The balancer parses, normalises and refuses requests itself, so most "
                  "failures are its own answers to bad input: its status codes, and it keeps or closes the client's "
                  "connection in its own way. Spindle's servers pass every one of these cases when reached directly "
                  "(the matrix's correctness column). Where two servers differ behind the same balancer, compare the "
                  "lists below.", "",
                  "| through | passed / run |", "|---|---:|"]
        lines += [f"| {stem} | {p}/{t} |" for stem, (p, t, _) in checks.items()]
        for stem, (_, _, failed) in checks.items():
            if failed:
                lines += ["", f"<details><summary>{stem}: {len(failed)} failed</summary>", ""]
                lines += [f"- `{case}`: {msg[:200]}" for case, msg in failed]
                lines += ["", "</details>"]
        lines.append("")
    if bars:
        sys.path.insert(0, str(Path(__file__).parent))
        import charts
        charts.bar_chart(run / "charts" / "cluster", "GET /plaintext: direct and behind balancers",
                         f"run {run.name}; one round; per-CPU panel: requests per CPU-second of the instances",
                         [charts.Bar(label, rps, None, per_cpu, None, False, False, False,
                                     None if rps else "no figure") for label, rps, per_cpu in bars],
                         "one round: no spread")
        lines += ["![req/s and requests per server CPU-second](charts/cluster.svg)", ""]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    with raw_archive.extracted(Path(sys.argv[1])):
        sys.exit(main(Path(sys.argv[1])))
