# SPDX-License-Identifier: Apache-2.0
"""Tests of bench.py's report on a small synthetic run directory (standard library only; no charts):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
"""

from __future__ import annotations

import csv
import hashlib
import http.server
import json
import tempfile
import threading
import math
import unittest
from pathlib import Path

import bench
import raw_archive

WRK_OUTPUT = """Running 4s test @ http://127.0.0.1:43639/plaintext
  1 threads and 256 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   846.85us  468.50us  12.90ms   84.46%
    Req/Sec   240.51k    18.02k  256.36k    87.50%
  Latency Distribution
     50%  814.00us
     75%    0.90ms
     90%    1.11ms
     99%    3.09ms
  956968 requests in 4.01s, 134.16MB read
Requests/sec: 238749.16
Transfer/sec:     33.47MB
"""

# Row -> its conformance TSV, or None for a row that was not checked.
CONFORMANCE = {
    "Wrong": "case\tstatus\tmessage\n"
             "benchmarkAppRoutes[GET /json -> 200]\tfailed\texpected: 200 but was: 404\n"
             "badInputGetsItsStatusAndACloseAndTheServerGoesOn[missing Host -> 400]\tfailed\t"
             "[missing Host] expected: 400 but was: 200\n"
             "keepAliveServesManyRequestsOnOneConnection\tpassed\t\n"
             "connectionsBeyondTheLimitGet503\tskipped\tlacks CONNECTION_LIMIT: its own configuration\n"
             "echoIsByteExact[0 bytes]\tskipped\tnot run: the check's time budget was spent before this case\n",
    "Right": "case\tstatus\tmessage\n"
             "benchmarkAppRoutes[GET /json -> 200]\tpassed\t\n"
             "keepAliveServesManyRequestsOnOneConnection\tpassed\t\n"
             "connectionsBeyondTheLimitGet503\tskipped\tlacks CONNECTION_LIMIT: its own configuration\n",
    "Unchecked": None,
}


def write_tsv(path: Path, rows: list[list[str]]) -> None:
    path.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")


def make_run(root: Path, conformance: dict[str, str | None]) -> Path:
    """A finished run: one scenario, one round per row, the given conformance files."""
    run = root / "run"
    (run / "raw").mkdir(parents=True)
    write_tsv(run / "meta.tsv", [["run_id", "test-run"], ["rounds", "1"], ["duration", "4"], ["clk_tck", "100"]])
    write_tsv(run / "servers.tsv", [["name", "class", "module", "props", "reference", "baseline_of", "workers"]]
              + [[name, name, "m", "", "0", "", "2"] for name in conformance])
    write_tsv(run / "scenarios.tsv", [["name", "method", "path", "connections", "script", "script_args", "timeout",
                                       "blocking", "tls", "description", "wait_ms"],
                                      ["plaintext-c256", "GET", "/plaintext", "256", "", "", "2s", "0", "0", "", ""]])
    write_tsv(run / "events.tsv", [["round", "server", "kind", "message", "scope"]])
    measurements = [["round", "server", "scenario", "raw", "cpu_ticks", "wrk_rc", "wall_s"]]
    for name, tsv in conformance.items():
        (run / "raw" / f"{name}.txt").write_text(WRK_OUTPUT, encoding="utf-8")
        measurements.append(["1", name, "plaintext-c256", f"raw/{name}.txt", "400", "0", "4"])
        if tsv is not None:
            (run / "conformance").mkdir(exist_ok=True)
            (run / "conformance" / f"{name}.tsv").write_text(tsv, encoding="utf-8")
    write_tsv(run / "measurements.tsv", measurements)
    return run


def table_rows(markdown: str, first_cell: str) -> list[list[str]]:
    """The cells of every table line whose first cell is `first_cell`."""
    rows = []
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            rows.append(cells)
    return rows


class CorrectnessColumnTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def report(self, conformance: dict[str, str | None]) -> bench.Report:
        return bench.Report(make_run(Path(self.tmp.name), conformance))

    def test_every_table_shows_passed_over_total_or_a_dash(self):
        md = self.report(CONFORMANCE).markdown(1, "")
        overview_header = table_rows(md, "server")[0]
        self.assertEqual(overview_header[:3], ["server", "RFC 9112", "contract"])
        scenario_header = table_rows(md, "#")[0]
        self.assertEqual(scenario_header[:4], ["#", "server", "RFC 9112", "contract"])
        # skips count in neither figure; a file without the rule column counts every case as RFC 9112
        for name, expected in (("Wrong", ["1/3", "0/0"]), ("Right", ["2/2", "0/0"]), ("Unchecked", ["–", "–"])):
            self.assertEqual(table_rows(md, name)[0][1:3], expected, f"overview row of {name}")
            scenario_row = next(r for r in table_rows(md, "1") + table_rows(md, "2") + table_rows(md, "3") if r[1] == name)
            self.assertEqual(scenario_row[2:4], expected, f"scenario row of {name}")

    def test_the_failures_are_listed_under_the_tables_with_their_messages(self):
        md = self.report(CONFORMANCE).markdown(1, "")
        section = md.split("## Conformance failures", 1)[1]
        self.assertGreater(md.index("## Conformance failures"), md.index("## plaintext-c256"))
        self.assertIn("### RFC 9112 failures", section)
        self.assertIn("- **Wrong** — 1/3 RFC 9112, 2 failed, 2 skipped (1 not run: the check's time budget ran out):",
                      section)
        self.assertIn("  - `badInputGetsItsStatusAndACloseAndTheServerGoesOn[missing Host -> 400]`: "
                      "[missing Host] expected: 400 but was: 200", section)
        self.assertIn("Every case run passed: Right (2/2, 1 skipped).", section)
        self.assertIn("Not checked (no conformance/<row>.tsv): Unchecked.", section)
        self.assertNotIn("connectionsBeyondTheLimitGet503", section)

    def test_the_csv_has_the_counts_and_blanks_for_an_unchecked_row(self):
        report = self.report(CONFORMANCE)
        report.write_csv()
        with (report.run / "summary.csv").open(encoding="utf-8") as f:
            rows = {r["server"]: r for r in csv.DictReader(f)}
        cases = [("Wrong", "1", "3"), ("Right", "2", "2"), ("Unchecked", "", "")]
        for name, passed, total in cases:
            self.assertEqual((rows[name]["conformance_passed"], rows[name]["conformance_total"]), (passed, total), name)

    def test_the_terminal_overview_shows_the_score_beside_each_row(self):
        lines = self.report(CONFORMANCE).terminal_overview().splitlines()
        self.assertEqual(lines[1].split(), ["RFC9112", "contract", "plaintext-c256"])
        scores = {line.split()[0]: line.split()[1:3] for line in lines[2:]}
        self.assertEqual(scores, {"Wrong": ["1/3", "0/0"], "Right": ["2/2", "0/0"], "Unchecked": ["–", "–"]})

    def test_a_run_without_checks_has_no_column_and_no_section(self):
        md = self.report({"Right": None, "Unchecked": None}).markdown(1, "")
        self.assertEqual(table_rows(md, "server")[0], ["server", "plaintext-c256"])
        self.assertNotIn("RFC 9112", table_rows(md, "#")[0])
        self.assertNotIn("Conformance failures", md)



def wrk_text(rps: float, requests: int, p99_ms: float = 3.0, avg_ms: float = 1.0, timeouts: int = 0,
             connect: int = 0, non2xx: int = 0, seconds: float = 4.0) -> str:
    """A wrk 4 output with the given figures (0 requests: wrk's zeros and -nan, as a server that answers nothing)."""
    if requests == 0:
        latency = "    Latency     0.00us    0.00us   0.00us    -nan%\n"
        dist = "".join(f"     {p}%    0.00us\n" for p in (50, 75, 90, 99))
    else:
        latency = f"    Latency   {avg_ms:.2f}ms  0.50ms  12.90ms   84.46%\n"
        dist = "".join(f"     {p}%    {v:.2f}ms\n" for p, v in ((50, avg_ms), (75, avg_ms), (90, avg_ms), (99, p99_ms)))
    errors = (f"  Socket errors: connect {connect}, read 0, write 0, timeout {timeouts}\n"
              if timeouts or connect else "")
    return ("Running 4s test @ http://127.0.0.1:1/x\n  1 threads and 256 connections\n"
            "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n" + latency
            + "  Latency Distribution\n" + dist + f"  {requests} requests in {seconds:.2f}s, 1.00MB read\n" + errors
            + (f"  Non-2xx or 3xx responses: {non2xx}\n" if non2xx else "")
            + f"Requests/sec: {rps:.2f}\nTransfer/sec:     1.00MB\n")


def synthetic_run(root: Path, rounds: int, cells: dict, scenario: str = "plaintext-c256", open_spec: str = "",
                  starts: list | None = None, conformance: dict | None = None, meta: dict | None = None,
                  start_column: bool = True, scenario_fields: dict | None = None, cpu_ns: dict | None = None) -> Path:
    """A run directory. cells: server -> list per round of (raw text or an open-model dict, cpu ticks);
    starts: rows of starts.tsv (server, start, mode, warmup_s, steady, reason), None for an old run without it;
    scenario_fields: scenarios.tsv fields to override (connections, wait_ms, streams, ...); cpu_ns: (server, round)
    -> the cpu_ns field of that measurement (a cpu_ns column is written when given)."""
    run = root / "run"
    (run / "raw").mkdir(parents=True)
    meta_rows = {"run_id": "synthetic", "rounds": str(rounds), "duration": "4", "clk_tck": "100", "mode": "default",
                 "warmup": "2", **(meta or {})}
    write_tsv(run / "meta.tsv", [[k, v] for k, v in meta_rows.items()])
    write_tsv(run / "servers.tsv", [["name", "class", "module", "props", "reference", "baseline_of", "workers"]]
              + [[name, name, "m", "", "1" if name.startswith("Ref") else "0", "", "2"] for name in cells])
    sc = {"name": scenario, "method": "GET", "path": "/plaintext", "connections": "256", "script": "", "script_args": "",
          "timeout": "2s", "blocking": "0", "tls": "0", "description": "", "wait_ms": "", "open": open_spec,
          **(scenario_fields or {})}
    write_tsv(run / "scenarios.tsv", [list(sc), list(sc.values())])
    write_tsv(run / "events.tsv", [["round", "server", "kind", "message", "scope"]])
    header = (["round", "server", "scenario", "raw", "cpu_ticks", "wrk_rc", "wall_s"] + (["start"] if start_column else [])
              + (["cpu_ns"] if cpu_ns is not None else []))
    measurements = [header]
    for name, per_round in cells.items():
        for i, (raw, ticks) in enumerate(per_round, start=1):
            rel = f"raw/{name}/{scenario}-round{i}"
            if isinstance(raw, dict):
                (run / rel).mkdir(parents=True)
                write_tsv(run / rel / "summary.tsv", [list(raw), [str(v) for v in raw.values()]])
                write_tsv(run / rel / "percentiles.tsv", [["percentile", "latency_ms", "count"]]
                          + [[str(p), str(v), "1"] for p, v in ((50, raw["p50_ms"]), (99, raw["p99_ms"]),
                                                                (100, raw["max_ms"]))])
            else:
                rel += ".txt"
                (run / rel).parent.mkdir(parents=True, exist_ok=True)
                (run / rel).write_text(raw, encoding="utf-8")
            measurements.append([str(i), name, scenario, rel, str(ticks), "0", "4"] + (["1"] if start_column else [])
                                + ([cpu_ns.get((name, i), "")] if cpu_ns is not None else []))
    write_tsv(run / "measurements.tsv", measurements)
    if starts is not None:
        write_tsv(run / "starts.tsv", [["server", "start", "mode", "warmup_s", "steady", "reason"]] + starts)
    for name, tsv in (conformance or {}).items():
        (run / "conformance").mkdir(exist_ok=True)
        (run / "conformance" / f"{name}.tsv").write_text(tsv, encoding="utf-8")
    return run


def csv_rows(report: bench.Report) -> dict:
    report.write_csv()
    with (report.out / "summary.csv").open(encoding="utf-8") as f:
        return {r["server"]: r for r in csv.DictReader(f)}


def scenario_row(md: str, server: str) -> list[str]:
    """The ranked-table row of a server (its rank cell first)."""
    return next(r for line in md.splitlines() if line.startswith("| ")
                for r in [[c.strip() for c in line.strip().strip("|").split("|")]]
                if len(r) > 1 and r[1].split(" ")[0] == server)


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = Path(self.tmp.name)


class MedianTest(TempDirTest):
    def test_three_rounds_give_the_middle_value_of_each_column_and_min_max(self):
        # req/s 100k, 300k, 200k: the old code's lower-middle round would be 200k too, but its p99 (1 ms) comes
        # from that round, where the true median p99 is 5 ms
        run = synthetic_run(self.root, 3, {"A": [(wrk_text(100_000, 400_000, p99_ms=9), 400),
                                                 (wrk_text(300_000, 1_200_000, p99_ms=5), 400),
                                                 (wrk_text(200_000, 800_000, p99_ms=1), 400)]})
        report = bench.Report(run)
        cell = report.cells[("A", "plaintext-c256")]
        self.assertEqual(cell.rps, 200_000)
        self.assertEqual(cell.rps_range, (100_000, 300_000))
        self.assertEqual(cell.latency_p99_ms, 5)
        md = report.markdown(1, "")
        row = scenario_row(md, "A")
        self.assertEqual(row[2:6], ["200,000", "100,000–300,000 ≈ noisy ↗", "1.00", "5.00"])  # round 1 lowest
        self.assertIn("median of 3 rounds", md)
        rows = csv_rows(report)
        self.assertEqual((rows["A"]["req_per_s"], rows["A"]["req_per_s_min"], rows["A"]["req_per_s_max"]),
                         ("200000.00", "100000.00", "300000.00"))
        self.assertEqual(rows["A"]["latency_p99_ms"], "5.000")

    def test_two_rounds_give_the_mean_of_the_two_and_say_so(self):
        run = synthetic_run(self.root, 2, {"A": [(wrk_text(100_000, 400_000), 400),
                                                 (wrk_text(110_000, 440_000), 400)]})
        report = bench.Report(run)
        self.assertEqual(report.cells[("A", "plaintext-c256")].rps, 105_000)  # not the lower round's 100,000
        md = report.markdown(1, "")
        self.assertEqual(scenario_row(md, "A")[2:4], ["105,000", "100,000–110,000 ↗"])
        self.assertIn("median of 2 rounds (even: mean of the middle two)", md)
        self.assertNotIn("lower middle", md)

    def test_noisy_is_judged_against_the_true_median(self):
        # spread 30k over a median of 160k = 19%: not noisy; against the lower round (145k) it would be 21%
        run = synthetic_run(self.root, 2, {"A": [(wrk_text(145_000, 580_000), 400),
                                                 (wrk_text(175_000, 700_000), 400)]})
        cell = bench.Report(run).cells[("A", "plaintext-c256")]
        self.assertFalse(cell.noisy)


class CpuPerRequestTest(TempDirTest):
    def test_cpu_figures_divide_by_requests_completed_not_by_req_per_s(self):
        # 250 ticks at clk_tck 250 = 1.0 CPU-s; 8,000 requests in the run at 2,000 req/s:
        # 8,000 req per CPU-s and 0.125 ms per request (CPU-s / req/s would give 0.5 ms)
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(2_000, 8_000), 250)]}, meta={"clk_tck": "250"})
        report = bench.Report(run)
        cell = report.cells[("A", "plaintext-c256")]
        self.assertEqual(cell.cpu_s, 1.0)
        self.assertEqual(cell.req_per_cpu_s, 8_000)
        self.assertAlmostEqual(cell.ms_cpu_per_request, 0.125)
        row = scenario_row(report.markdown(1, ""), "A")
        self.assertEqual(row[8:11], ["1.00", "8,000", "0.125"])
        self.assertEqual(csv_rows(report)["A"]["ms_server_cpu_per_request"], "0.1250")

    def test_cpu_figures_are_medians_of_the_rounds_own_ratios(self):
        # per round: 4,000 / 1 s, 9,000 / 3 s, 2,000 / 2 s -> 4,000, 3,000, 1,000 req/CPU-s; median 3,000
        run = synthetic_run(self.root, 3, {"A": [(wrk_text(1_000, 4_000), 100), (wrk_text(2_250, 9_000), 300),
                                                 (wrk_text(500, 2_000), 200)]})
        cell = bench.Report(run).cells[("A", "plaintext-c256")]
        self.assertEqual(cell.req_per_cpu_s, 3_000)
        self.assertEqual(cell.per_cpu_range, (1_000, 4_000))
        self.assertAlmostEqual(cell.ms_cpu_per_request, 1000 / 3_000)


class FailureRuleTest(TempDirTest):
    def test_a_cell_with_zero_requests_is_a_failure_row_and_not_none(self):
        run = synthetic_run(self.root, 2, {"A": [(wrk_text(100_000, 400_000), 400)] * 2,
                                           "Single": [(wrk_text(0, 0), 2), (wrk_text(0, 0), 1)]})
        report = bench.Report(run)
        md = report.markdown(1, "")
        failures = md.split("## Failures", 1)[1].split("\n## ", 1)[0]
        self.assertNotIn("None", failures)
        self.assertIn("Single plaintext-c256: failed: 0 requests in 2 rounds, 0 timeouts", failures)
        row = scenario_row(md, "Single")
        self.assertEqual(row[0], "–")
        self.assertIn("failed: 0 requests in 2 rounds", " ".join(row))
        self.assertIn("**failed: 0 requests in 2 rounds, 0 timeouts**", table_rows(md, "Single")[0][1])
        self.assertEqual(csv_rows(report)["Single"]["status"], "failed")
        self.assertEqual(csv_rows(report)["Single"]["req_per_s"], "")
        self.assertTrue(report.violations(False))

    def test_a_timeout_only_run_is_a_failure_with_its_timeouts(self):
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(0, 0, timeouts=734, connect=3), 5)]})
        report = bench.Report(run)
        md = report.markdown(1, "")
        self.assertIn("failed: 0 requests in 1 round, 734 timeouts, 3 other socket errors", md)
        self.assertNotIn("None:", md)
        self.assertEqual(csv_rows(report)["A"]["errors_timeout"], "734")

    def test_one_empty_round_of_two_is_a_partial_cell_listed_under_failures(self):
        run = synthetic_run(self.root, 2, {"A": [(wrk_text(100_000, 400_000), 400), (wrk_text(0, 0, timeouts=9), 3)]})
        report = bench.Report(run)
        md = report.markdown(1, "")
        self.assertEqual(report.cells[("A", "plaintext-c256")].rps, 100_000)
        self.assertIn("A plaintext-c256: round 2: 0 requests completed, 9 socket errors (timeout 9)", md)
        self.assertNotIn("None:", md)
        self.assertEqual(csv_rows(report)["A"]["status"], "partial")

    def test_a_clean_run_still_says_none(self):
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(100_000, 400_000), 400)]})
        self.assertIn("None: every server started", bench.Report(run).markdown(1, ""))


STARTS = [["A", "1", "adaptive", "30.0", "0", "cap of 30 s reached: last 3 windows spread 7.9%"],
          ["B", "1", "adaptive", "6.0", "1", "last 3 windows within 2.1% and 0 methods compiled in the last window"]]


class SteadyMarkTest(TempDirTest):
    def cells(self):
        return {"A": [(wrk_text(100_000, 400_000), 400)], "B": [(wrk_text(90_000, 360_000), 400)]}

    def test_a_row_whose_start_was_not_steady_is_marked_in_every_table_with_a_note(self):
        for start_column in (True, False):  # without the measurements' start column: start 1
            with self.subTest(start_column=start_column):
                root = self.root / str(start_column)
                report = bench.Report(synthetic_run(root, 1, self.cells(), starts=STARTS, start_column=start_column,
                                                    meta={"warmup_mode": "adaptive", "warmup_cap": "30"}))
                md = report.markdown(1, "")
                overview = md.split("## Overview", 1)[1]
                self.assertEqual(table_rows(overview, "A")[0][1], "100,000 †")
                self.assertEqual(table_rows(overview, "B")[0][1], "90,000")
                self.assertEqual(scenario_row(md, "A")[1], "A †")
                self.assertEqual(scenario_row(md, "B")[1], "B")
                self.assertIn("† = not steady", md)
                self.assertIn("| A | 1 | adaptive | 30.0 | **no** † | cap of 30 s reached: last 3 windows spread 7.9% |",
                              md)
                self.assertIn("1 of 2 starts not steady", md)
                self.assertEqual(csv_rows(report)["A"]["not_steady"], "1")
                self.assertEqual(csv_rows(report)["B"]["not_steady"], "0")
                self.assertIn("100.0k†", report.terminal_overview())

    def test_a_cell_is_marked_when_any_of_its_rounds_ran_in_an_unsteady_start(self):
        # starts per round: round 2 of A ran in start 2, which hit the cap
        run = synthetic_run(self.root, 2, {"A": [(wrk_text(100_000, 400_000), 400)] * 2,
                                           "B": [(wrk_text(90_000, 360_000), 400)] * 2},
                            starts=[["A", "1", "adaptive", "5", "1", "ok"], ["A", "2", "adaptive", "30", "0", "cap"],
                                    ["B", "1", "adaptive", "5", "1", "ok"], ["B", "2", "adaptive", "5", "1", "ok"]])
        lines = (run / "measurements.tsv").read_text(encoding="utf-8").splitlines()
        lines = [ln[:-1] + "2" if ln.startswith("2\t") else ln for ln in lines]  # round 2 ran in start 2
        (run / "measurements.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        report = bench.Report(run)
        self.assertTrue(report.not_steady(report.cells[("A", "plaintext-c256")]))
        self.assertFalse(report.not_steady(report.cells[("B", "plaintext-c256")]))

    def test_the_warm_up_windows_are_read_per_server_and_start(self):
        run = synthetic_run(self.root, 1, self.cells(), starts=STARTS)
        write_tsv(run / "raw" / "A" / "warmup-start1.tsv",
                  [["t_s", "scenario", "window_s", "requests", "req_per_s", "compiled_total", "compile_queue"],
                   ["1.0", "plaintext-c256", "1", "5000", "5000.0", "900", "12"],
                   ["2.0", "plaintext-c256", "1", "9000", "9000.0", "950", ""]])
        report = bench.Report(run)
        self.assertEqual(report.warmups, {("A", "1"): [(1.0, 5000.0, "plaintext-c256"), (2.0, 9000.0, "plaintext-c256")]})
        self.assertIn("charts/warmup.svg", report.markdown(1, ""))

    def test_the_warm_up_chart_puts_each_scenario_on_its_own_level(self):
        # two scenarios a hundredfold apart: each window over the mean of its scenario's last 2 windows, a break
        # (nan) between them, a scenario that answered nothing left out
        points = [(1.0, 50_000.0, "a"), (2.0, 90_000.0, "a"), (3.0, 110_000.0, "a"),
                  (4.0, 500.0, "b"), (5.0, 1_000.0, "b"), (6.0, 1_000.0, "b"), (7.0, 0.0, "c")]
        rel = bench.relative_warmup(points, 2)
        self.assertEqual([t for t, _ in rel], [1.0, 2.0, 3.0, 4.0, 4.0, 5.0, 6.0])
        self.assertEqual([round(v) for _, v in rel if v == v], [50, 90, 110, 50, 100, 100])
        self.assertTrue(math.isnan(rel[3][1]))

    def test_an_old_run_has_no_mark_and_says_its_warm_up_was_not_checked(self):
        md = bench.Report(synthetic_run(self.root, 1, self.cells(), start_column=False)).markdown(1, "")
        self.assertNotIn("†", md)
        self.assertIn("recorded no steady-state check", md)


RULED = ("case\tstatus\tmessage\trule\n"
         "statusLineIsHttp11\tfailed\tgot HTTP/1.0 200\tcontract\n"
         "missingHostGets400\tfailed\texpected 400 but was 200\trfc9112\n"
         "keepAlive\tpassed\t\trfc9112\n"
         "idleTimeoutCloses\tpassed\t\tcontract\n"
         "limit\tskipped\tlacks CONNECTION_LIMIT\tcontract\n")


class CorrectnessSplitTest(TempDirTest):
    def test_a_rule_field_under_a_three_column_header_is_still_read(self):
        tsv = "case\tstatus\tmessage\nstatusLine\tfailed\tHTTP/1.0\tcontract\nkeepAlive\tpassed\t\trfc9112\n"
        report = bench.Report(synthetic_run(self.root, 1, {"Ref": [(wrk_text(100_000, 400_000), 400)]},
                                            conformance={"Ref": tsv}))
        self.assertEqual((report.correct("Ref", "rfc9112"), report.correct("Ref", "contract")), ("1/1", "0/1"))

    def test_the_rule_column_splits_the_score_and_groups_the_failures(self):
        report = bench.Report(synthetic_run(self.root, 1, {"Ref": [(wrk_text(100_000, 400_000), 400)]},
                                            conformance={"Ref": RULED}))
        md = report.markdown(1, "")
        self.assertEqual(table_rows(md, "Ref")[0][1:3], ["1/2", "1/2"])
        section = md.split("## Conformance failures", 1)[1]
        rfc, contract = section.index("### RFC 9112 failures"), section.index("### contract failures")
        self.assertLess(rfc, section.index("missingHostGets400"))
        self.assertLess(section.index("missingHostGets400"), contract)
        self.assertLess(contract, section.index("statusLineIsHttp11"))
        rows = csv_rows(report)
        self.assertEqual([rows["Ref"][k] for k in ("rfc9112_passed", "rfc9112_total", "contract_passed",
                                                    "contract_total")], ["1", "2", "1", "2"])


def open_round(p50: float, p99: float, achieved: float = 990.0, responses: int = 3960, errors: int = 0) -> dict:
    return {"offered_rate": "1000.000", "achieved_rate": f"{achieved:.3f}", "requests": str(max(responses, 1) + errors),
            "responses": str(responses), "errors": str(errors), "timeouts": str(errors), "non2xx": "0",
            "p50_ms": p50, "p90_ms": p50, "p99_ms": p99, "p999_ms": p99, "max_ms": p99 + 1, "mean_ms": p50,
            "blocked_ms": "0", "unsent": "0", "session_limit_exceeded": "0", "peak_sessions": "10",
            "max_sessions": "100", "connections": "100", "threads": "2", "duration_s": "4"}


class OpenModelTest(TempDirTest):
    def test_each_percentile_is_the_median_across_rounds_with_min_max(self):
        # p99 10, 50, 20 -> 20 (round 3); p50 1, 3, 5 -> 3, which is not round 3's 5
        rounds = [(open_round(1, 10), 100), (open_round(3, 50), 100), (open_round(5, 20), 100)]
        report = bench.Report(synthetic_run(self.root, 3, {"A": rounds}, scenario="open-x", open_spec="rate:1000"))
        o = report.cells[("A", "open-x")].open_median
        self.assertEqual((o.p50_ms, o.p99_ms), (3, 20))
        self.assertEqual(dict(o.percentiles)[50.0], 3)
        md = report.markdown(1, "")
        row = scenario_row(md, "A")
        self.assertEqual(row[4:8], ["3.00", "3.00", "**20.0**", "10.0–50.0"])
        self.assertIn("| A | 20.0 (10.0–50.0) |", md)
        rows = csv_rows(report)
        self.assertEqual((rows["A"]["latency_p50_ms"], rows["A"]["latency_p99_ms"]), ("3.000", "20.000"))

    def test_two_rounds_give_the_mean_not_the_best_round(self):
        rounds = [(open_round(1, 10), 100), (open_round(3, 30), 100)]
        report = bench.Report(synthetic_run(self.root, 2, {"A": rounds}, scenario="open-x", open_spec="rate:1000"))
        self.assertEqual(report.cells[("A", "open-x")].open_median.p99_ms, 20)

    def test_a_round_with_only_errors_is_a_failure(self):
        rounds = [(open_round(1, 10, responses=0, errors=500), 100)]
        report = bench.Report(synthetic_run(self.root, 1, {"A": rounds}, scenario="open-x", open_spec="rate:1000"))
        md = report.markdown(1, "")
        self.assertIn("failed: 0 requests in 1 round", md)
        self.assertNotIn("None:", md)


class ReadmeTest(TempDirTest):
    def test_the_headline_shows_median_spread_marks_and_correctness_and_keeps_the_index(self):
        results = self.root / "results"
        run = synthetic_run(self.root, 3, {"A": [(wrk_text(v, v * 4), 400) for v in (100_000, 120_000, 110_000)],
                                           "B": [(wrk_text(90_000, 360_000), 400)] * 3},
                            starts=STARTS, conformance={"A": RULED})
        results.mkdir()
        run = run.rename(results / "2026-12-01T00-00-00Z")
        readme = results / "README.md"
        bench.write_readme(readme, bench.Report(run))
        text = readme.read_text(encoding="utf-8")
        self.assertIn("## Latest default run: [synthetic](2026-12-01T00-00-00Z/)", text)
        self.assertIn("| A | 1/2 | 1/2 | 110,000 (100.0k–120.0k) ↗ † |", text)
        self.assertIn("† = not steady", text)
        self.assertIn("Rows marked † had not reached steady state", text)
        self.assertIn("## All runs", text)
        self.assertIn("[2026-12-01T00-00-00Z](2026-12-01T00-00-00Z/summary.md)", text)

    def test_a_rewrite_keeps_the_sections_written_between_the_headline_and_the_index(self):
        results = self.root / "results"
        run = synthetic_run(self.root, 3, {"A": [(wrk_text(100_000, 400_000), 400)] * 3}, starts=STARTS)
        results.mkdir()
        run = run.rename(results / "2026-12-01T00-00-00Z")
        readme = results / "README.md"
        readme.write_text("# Benchmark results\n\nold intro\n\n## Latest default run: [old](old/)\n\n| old | 1 |\n\n"
                          "## HTTP/2 run: [x](x/)\n\nWritten by hand: 9,955 req/s.\n\n### Its detail\n\nmore\n\n"
                          "## All runs\n\n| old index |\n", encoding="utf-8")
        bench.write_readme(readme, bench.Report(run))
        text = readme.read_text(encoding="utf-8")
        self.assertNotIn("old intro", text)
        self.assertNotIn("| old | 1 |", text)
        self.assertNotIn("| old index |", text)
        self.assertEqual(text.count("## HTTP/2 run: [x](x/)\n\nWritten by hand: 9,955 req/s.\n\n### Its detail\n\nmore\n"), 1)
        self.assertLess(text.index("## Latest default run: [synthetic]"), text.index("## HTTP/2 run"))
        self.assertLess(text.index("### Its detail"), text.index("## All runs"))
        bench.write_readme(readme, bench.Report(run))
        self.assertEqual(readme.read_text(encoding="utf-8"), text)  # a second rewrite changes nothing

    def test_the_headline_is_the_latest_checked_default_run_not_a_newer_unchecked_one(self):
        results = self.root / "results"
        results.mkdir()
        checked = synthetic_run(self.root / "a", 3, {"A": [(wrk_text(100_000, 400_000), 400)] * 3}, starts=STARTS)
        checked = checked.rename(results / "2026-12-01T00-00-00Z")
        newer = synthetic_run(self.root / "b", 2, {"A": [(wrk_text(100_000, 400_000), 400)] * 2})
        newer = newer.rename(results / "2026-12-02T00-00-00Z")
        readme = results / "README.md"
        bench.write_readme(readme, bench.Report(newer))
        text = readme.read_text(encoding="utf-8")
        self.assertIn("## Latest default run: [synthetic](2026-12-01T00-00-00Z/)", text)
        self.assertIn("| adaptive, 1 of 2 starts steady |", text)
        self.assertIn("| fixed 2 s, not checked |", text)
        # only unchecked runs: the headline says so
        (checked / "starts.tsv").unlink()
        bench.write_readme(readme, bench.Report(newer))
        text = readme.read_text(encoding="utf-8")
        self.assertIn("## Latest default run: [synthetic](2026-12-02T00-00-00Z/)", text)
        self.assertIn("**Not a steady-state run:**", text)

    def test_a_committed_headline_run_reads_its_conformance_from_its_archive(self):
        results = self.root / "results"
        results.mkdir()
        committed = synthetic_run(self.root / "a", 3, {"A": [(wrk_text(100_000, 400_000), 400)] * 3},
                                  starts=STARTS, conformance={"A": RULED})
        committed = committed.rename(results / "2026-12-01T00-00-00Z")
        raw_archive.pack(committed)  # raw/ and conformance/ into raw.tar.gz, as under results/
        self.assertFalse((committed / "conformance").exists())
        newer = synthetic_run(self.root / "b", 2, {"A": [(wrk_text(100_000, 400_000), 400)] * 2})
        newer = newer.rename(results / "2026-12-02T00-00-00Z")
        readme = results / "README.md"
        bench.write_readme(readme, bench.Report(newer))
        text = readme.read_text(encoding="utf-8")
        self.assertIn("## Latest default run: [synthetic](2026-12-01T00-00-00Z/)", text)
        self.assertIn("| A | 1/2 | 1/2 |", text)
        self.assertFalse((committed / "conformance").exists())  # unpacked for the read only
        self.assertFalse((committed / "raw").exists())

    def test_report_out_leaves_the_run_directory_alone(self):
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(100_000, 400_000), 400)]})
        before = sorted(p.name for p in run.iterdir())
        report = bench.Report(run, self.root / "elsewhere")
        report.out.mkdir()
        report.write_csv()
        report.write_summary()
        self.assertEqual(sorted(p.name for p in run.iterdir()), before)
        self.assertTrue((self.root / "elsewhere" / "summary.md").is_file())

class RatioCheckTest(TempDirTest):
    def run_with(self, sub: str, ours: list, ref: list) -> bench.Report:
        cells = {"Ours": [(wrk_text(v, int(v * 4)), 100) for v in ours],
                 "RefA": [(wrk_text(v, int(v * 4)), 100) for v in ref]}
        return bench.Report(synthetic_run(self.root / sub, 3, cells))

    def test_a_ratio_that_moves_more_than_the_tolerance_is_counted_out_and_listed(self):
        a = self.run_with("a", [200, 200, 200], [100, 100, 100])   # ratio 2.0
        b = self.run_with("b", [200, 200, 200], [160, 160, 160])   # ratio 1.25: B ÷ A = 0.625
        text = "\n".join(bench.ratio_check_lines(a, b))
        self.assertIn("1 pairs; **0 agree within 15%**; 1 differ by more with no noisy cell", text)
        self.assertIn("| plaintext-c256 | Ours | RefA | 2.00 | 1.25 | 0.62 |", text)

    def test_ratios_within_the_tolerance_agree_and_noisy_pairs_are_counted_apart(self):
        a = self.run_with("a", [200, 200, 200], [100, 100, 100])
        b = self.run_with("b", [220, 220, 220], [100, 100, 100])   # B ÷ A = 1.10
        self.assertIn("**1 agree within 15%**", "\n".join(bench.ratio_check_lines(a, b)))
        c = self.run_with("c", [100, 300, 400], [100, 100, 100])   # median 300, rounds spread > 20%: noisy
        text = "\n".join(bench.ratio_check_lines(a, c))
        self.assertIn("0 differ by more with no noisy cell; 1 differ by more where a cell is noisy", text)
        self.assertIn("| 2.00 | 3.00 | 1.50 ≈ |", text)


def multipart_run(root: Path) -> Path:
    """A run with the multipart-10MB scenario: Spindle's A measured, the reference Ref without the route
    (a route-unavailable event, no measurement)."""
    run = synthetic_run(root, 1, {"A": [(WRK_OUTPUT, 150)], "Ref": []}, scenario="multipart-10MB")
    write_tsv(run / "scenarios.tsv", [["name", "method", "path", "connections", "script", "script_args", "timeout",
                                       "blocking", "tls", "description", "wait_ms", "open", "streams"],
                                      ["multipart-10MB", "POST", "/multipart", "16", "bench-multipart.lua", "10485760",
                                       "10s", "0", "0", "", "", "", ""]])
    write_tsv(run / "events.tsv", [["round", "server", "kind", "message", "scope"],
                                   ["1", "Ref", "route-unavailable", "does not serve POST /multipart (404 to the "
                                    "route check): multipart-10MB not measured", "route:/multipart"]])
    return run


class MultipartRouteTest(TempDirTest):
    def test_a_reference_without_the_route_is_na_not_a_failure(self):
        report = bench.Report(multipart_run(self.root))
        self.assertIsNotNone(report.cells[("A", "multipart-10MB")].rps)
        self.assertEqual(csv_rows(report)["Ref"]["status"], "no-route")
        self.assertEqual(csv_rows(report)["A"]["status"], "ok")
        self.assertIn("n/a: no route", report.markdown(1, ""))
        self.assertFalse(report.violations(False))

    def test_a_spindle_row_without_the_route_is_a_failure(self):
        run = multipart_run(self.root)
        write_tsv(run / "events.tsv", [["round", "server", "kind", "message", "scope"],
                                       ["1", "A", "route-unavailable", "does not serve POST /multipart", "route:/multipart"]])
        self.assertTrue([v for v in bench.Report(run).violations(False) if v.startswith("A")])

    def test_the_event_does_not_touch_the_rows_other_scenarios(self):
        report = bench.Report(multipart_run(self.root))
        e = report.events[0]
        self.assertTrue(report.applies(e, "multipart-10MB"))
        self.assertFalse(report.applies(e, "plaintext-c256"))

    def test_the_check_body_is_the_wrk_scripts(self):
        lua = (Path(__file__).parent / "bench-multipart.lua").read_text(encoding="utf-8")
        self.assertIn(bench.MULTIPART_BOUNDARY, lua)
        self.assertIn(bench.MULTIPART_ALPHABET.decode(), lua)
        self.assertIn(bench.MULTIPART_FIELD, lua)
        self.assertEqual(len(bench.multipart_file(1000)), 1000)
        body, content_type = bench.multipart_body(bench.multipart_file(200))
        self.assertEqual(content_type, f"multipart/form-data; boundary={bench.MULTIPART_BOUNDARY}")
        # the delimiter only where it belongs: after the field, and the close delimiter after the file
        self.assertEqual(body.count(f"\r\n--{bench.MULTIPART_BOUNDARY}".encode()), 2)


def multipart_checks(serve: bool, wrong_digest: bool = False) -> tuple[list, list]:
    """bench.run_checks against a server whose /multipart answers like the benchmark app (or 404s, or lies)."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if not serve or self.path != "/multipart":
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            delimiter = b"\r\n--" + bench.MULTIPART_BOUNDARY.encode()
            start = body.index(b"\r\n\r\n", body.index(b'filename="bench.bin"')) + 4
            file = body[start:body.index(delimiter, start)]
            digest = hashlib.sha256(file + (b"x" if wrong_digest else b"")).hexdigest()
            answer = json.dumps({"fields": {"title": bench.MULTIPART_FIELD}, "files": [
                {"name": "file", "filename": "bench.bin", "size": len(file), "sha256": digest}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def do_GET(self):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.handle_error = lambda *_: None   # the pipelined check's client closes early: no traceback
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        absent: list[str] = []
        results = bench.run_checks("127.0.0.1", server.server_address[1], 5.0, multipart_sizes=(300_000,), absent=absent)
        # the other optional routes (its server 404s them too) are other tests' matter
        return [r for r in results if "/multipart" in r[0]], [p for p in absent if p == "/multipart"]
    finally:
        server.shutdown()
        server.server_close()


class MultipartCheckTest(unittest.TestCase):
    def test_the_answer_digest_must_be_the_file_parts(self):
        results, absent = multipart_checks(serve=True)
        self.assertEqual(absent, [])
        self.assertEqual([r[1] for r in results], [None, None, None], results)
        results, _ = multipart_checks(serve=True, wrong_digest=True)
        self.assertTrue(all(r[1] for r in results), results)

    def test_a_404_is_absent_and_passes(self):
        results, absent = multipart_checks(serve=False)
        self.assertEqual(absent, ["/multipart"])
        self.assertEqual([r[1] for r in results], [None, None, None], results)
        self.assertIn("not served", results[0][2])


def users_list_checks(mode: str) -> tuple[list, list]:
    """bench.run_checks against a server whose /users-list answers as `mode` says: "gzip" (like the
    benchmark app), "ignore" (the document uncompressed, whatever the request accepts), "wrong" (gzip
    of other bytes) or "absent" (404)."""
    import gzip

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path != "/users-list" or mode == "absent":
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = bench.users_list() if mode != "wrong" else bench.users_list()[:-1]
            asked = "gzip" in (self.headers.get("Accept-Encoding") or "")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Vary", "Accept-Encoding")
            if asked and mode != "ignore":
                body = gzip.compress(body)
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.handle_error = lambda *_: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        absent: list[str] = []
        results = bench.run_checks("127.0.0.1", server.server_address[1], 5.0, absent=absent)
        return [r for r in results if "/users-list" in r[0]], [p for p in absent if p == "/users-list"]
    finally:
        server.shutdown()
        server.server_close()


class UsersListCheckTest(unittest.TestCase):
    def test_the_document_is_the_apps(self):
        # BenchmarkApp.usersList() and Fixtures.usersList() are pinned to the same digest by their tests
        doc = bench.users_list()
        self.assertEqual(len(doc), 2230)
        self.assertEqual(hashlib.sha256(doc).hexdigest(), "c914468acd53b6a6c09952fe64f52f85c671680b24f9c8fb911098f6f49694ea")
        self.assertEqual(len(json.loads(doc)["users"]), bench.USERS)

    def test_the_wrk_script_asks_for_gzip(self):
        lua = (Path(__file__).parent / "bench-gzip.lua").read_text(encoding="utf-8")
        self.assertIn('wrk.headers["Accept-Encoding"] = "gzip"', lua)
        self.assertNotIn("request =", lua)   # wrk's fast path: the request formatted once

    def test_gzip_passes(self):
        results, absent = users_list_checks("gzip")
        self.assertEqual(absent, [])
        self.assertEqual([r[1] for r in results], [None, None], results)

    def test_a_server_ignoring_accept_encoding_fails(self):
        results, _ = users_list_checks("ignore")
        self.assertIsNone(results[0][1])
        self.assertIn("Content-Encoding (none)", results[1][1])

    def test_other_bytes_fail(self):
        results, _ = users_list_checks("wrong")
        self.assertTrue(all(r[1] for r in results), results)

    def test_a_404_is_absent_and_passes(self):
        results, absent = users_list_checks("absent")
        self.assertEqual(absent, ["/users-list"])
        self.assertEqual([r[1] for r in results], [None, None], results)
        self.assertIn("not served", results[0][2])


def remote_tls_checks(answer: str, route: str = "/remote-tls/100") -> tuple[list, list]:
    """bench.run_checks with remote_tls (or, for /remote-h2/100, remote_h2) against a server whose GET
    `route` answers as `answer` says: "ok" (the downstream's /delay/100 body passed through), "404" or "502"."""
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_GET(self):
            body = b'{"delayed":100}' if self.path == route and answer == "ok" else b""
            status = 200 if body else (502 if self.path == route and answer == "502" else 404)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.handle_error = lambda *_: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        absent: list[str] = []
        h2 = route.startswith("/remote-h2")
        prefix = "/remote-h2" if h2 else "/remote-tls"
        results = bench.run_checks("127.0.0.1", server.server_address[1], 5.0, absent=absent,
                                   remote_tls=not h2, remote_h2=h2)
        return [r for r in results if prefix in r[0]], [p for p in absent if p.startswith(prefix)]
    finally:
        server.shutdown()
        server.server_close()


class RemoteTlsCheckTest(unittest.TestCase):
    def test_the_downstream_body_passes(self):
        results, absent = remote_tls_checks("ok")
        self.assertEqual(absent, [])
        self.assertEqual([r[1] for r in results], [None], results)

    def test_a_404_is_absent_the_scenario_path(self):
        results, absent = remote_tls_checks("404")
        self.assertEqual(absent, ["/remote-tls/100"])
        self.assertIn("/remote-tls/100", bench.OPTIONAL_ROUTES)
        self.assertEqual([r[1] for r in results], [None], results)

    def test_a_502_fails(self):
        results, absent = remote_tls_checks("502")
        self.assertEqual(absent, [])
        self.assertTrue(results[0][1], results)


class RemoteH2CheckTest(unittest.TestCase):
    def test_the_downstream_body_passes(self):
        results, absent = remote_tls_checks("ok", "/remote-h2/100")
        self.assertEqual(absent, [])
        self.assertEqual([r[0] for r in results], ["GET /remote-h2/100"])
        self.assertEqual([r[1] for r in results], [None], results)

    def test_a_404_is_absent_the_scenario_path(self):
        results, absent = remote_tls_checks("404", "/remote-h2/100")
        self.assertEqual(absent, ["/remote-h2/100"])
        self.assertEqual(bench.OPTIONAL_ROUTES.get("/remote-h2/100"), "GET")
        self.assertEqual([r[1] for r in results], [None], results)

    def test_a_502_fails(self):
        results, absent = remote_tls_checks("502", "/remote-h2/100")
        self.assertEqual(absent, [])
        self.assertTrue(results[0][1], results)



H2LOAD_OUTPUT = """starting benchmark...
spawning thread #0: 64 total client(s). Timing-based test with 1s of warm-up time and 2s of main duration for measurements.
Warm-up started for thread #0.
Application protocol: h2c
Warm-up phase is over for thread #0.
Main benchmark duration is started for thread #0.
Main benchmark duration is over for thread #0. Stopping all clients.
Stopped all clients for thread #0

finished in 3.01s, 149999.00 req/s, 5.01MB/s
requests: 300000 total, 300100 started, 300000 done, 299988 succeeded, 12 failed, 2 errored, 0 timeout
status codes: 299988 2xx, 0 3xx, 10 4xx, 0 5xx
traffic: 10.03MB (10517184) total, 2.86MB (3000000) headers (space savings 96.15%), 3.72MB (3900000) data
                     min         max         mean         sd        +/- sd
time for request:      201us     41.98ms     13.56ms      4.01ms    71.55%
time for connect:        0us         0us         0us         0us     0.00%
time to 1st byte:        0us         0us         0us         0us     0.00%
req/s           :    2301.10     2401.10     2343.75       21.76    70.31%
"""


def h2_run(root: Path, streams: str = "32", path: str = "/plaintext", wait_ms: str = "") -> Path:
    """A run with one h2 scenario (scenarios.tsv "streams") and two rows: Spindle's A measured by h2load,
    the reference Ref without h2 (an h2-unavailable event, no measurement)."""
    text = H2LOAD_OUTPUT + bench.H2LOAD_LATENCY_LINE + " (300000 requests): p50 12.000ms p75 14.000ms p90 " \
        "17.000ms p99 25.500ms p99.9 38.000ms p100 41.980ms\n"
    run = synthetic_run(root, 1, {"A": [(text, 150)], "Ref": []}, scenario="plaintext-h2c")
    write_tsv(run / "scenarios.tsv", [["name", "method", "path", "connections", "script", "script_args", "timeout",
                                       "blocking", "tls", "description", "wait_ms", "open", "streams"],
                                      ["plaintext-h2c", "GET", path, "64" if not wait_ms else "8", "", "", "2s",
                                       "1" if wait_ms else "0", "0", "", wait_ms, "", streams]])
    write_tsv(run / "events.tsv", [["round", "server", "kind", "message", "scope"],
                                   ["1", "Ref", "h2-unavailable", "does not speak h2c (prior knowledge): one request "
                                    "by h2load got no 2xx answer (h2load: requests: 1 total)", "h2"]])
    return run


class H2loadTest(TempDirTest):
    def test_h2load_output_gives_the_cell_its_figures(self):
        r = bench.parse_result(H2LOAD_OUTPUT)
        self.assertEqual(r.rps, 149_999)  # h2load's: the 299,998 streams closed without a reset (4xx included) / 2 s
        self.assertEqual(r.requests, 300_000)  # done in the timed window, not started
        self.assertEqual(r.failed, 12)  # 10 answers 4xx and 2 errored streams
        self.assertEqual(r.socket_errors, 2)  # the errored streams; the 4xx answers are non-2xx/3xx, not both
        self.assertEqual(r.non2xx, 10)
        self.assertEqual(r.good_requests, 299_988)
        self.assertAlmostEqual(r.good_rps, 299_988 / 2)  # goodput: the 2xx answers over h2load's 2 s window
        self.assertAlmostEqual(r.seconds, 2.0)
        self.assertAlmostEqual(r.latency_avg_ms, 13.56)
        self.assertIsNone(r.latency_p99_ms)  # h2load prints no percentiles of its own
        self.assertIsNone(bench.parse_wrk(H2LOAD_OUTPUT).rps)  # wrk's parser would have read nothing

    def test_the_log_file_gives_nearest_rank_percentiles(self):
        log = self.root / "log.tsv"
        log.write_text("".join(f"1795743233150137\t200\t{us}\n" for us in range(1000, 101_000, 1000)), encoding="utf-8")
        line = bench.h2load_latency_line(log)
        r = bench.parse_result(H2LOAD_OUTPUT + line + "\n")
        self.assertEqual(r.percentiles[50.0], 50.0)
        self.assertEqual(r.percentiles[99.0], 99.0)
        self.assertEqual(r.latency_p99_ms, 99.0)
        self.assertEqual(r.percentiles[100.0], 100.0)

    def test_an_h2_cell_has_cpu_per_request_and_a_row_without_h2_is_na_with_its_reason(self):
        report = bench.Report(h2_run(self.root))
        cell = report.cells[("A", "plaintext-h2c")]
        self.assertAlmostEqual(cell.rps, 149_994)
        self.assertEqual(cell.latency_p99_ms, 25.5)
        self.assertAlmostEqual(cell.ms_cpu_per_request, 1000 * 1.5 / 299_988)
        md = report.markdown(1, "")
        row = table_rows(md, "–")[0]
        self.assertIn("n/a: no h2", row[1] + row[2])
        self.assertIn("does not speak h2c", " ".join(row))
        self.assertEqual(csv_rows(report)["Ref"]["status"], "no-h2")
        self.assertEqual(csv_rows(report)["Ref"]["req_per_s"], "")
        # a reference without h2 is reported, not a failure; the same for a Spindle row would be
        self.assertFalse([v for v in report.violations(False) if v.startswith("Ref")])

    def test_a_spindle_row_without_h2_is_a_failure(self):
        run = h2_run(self.root)
        write_tsv(run / "events.tsv", [["round", "server", "kind", "message", "scope"],
                                       ["1", "A", "h2-unavailable", "does not speak h2c", "h2"]])
        self.assertTrue([v for v in bench.Report(run).violations(False) if v.startswith("A")])

    def test_the_bound_of_a_waiting_h2_scenario_counts_streams(self):
        sc = {"connections": "8", "streams": "125", "wait_ms": "100"}
        self.assertEqual(bench.upper_bound(sc), 10_000)
        self.assertIn("1,000 streams (8 connections x 125)", bench.bound_text(sc))
        self.assertEqual(bench.upper_bound({"connections": "1000", "wait_ms": "100"}), 10_000)

    def test_an_h2load_killed_by_its_time_limit_is_a_failed_round_that_says_so(self):
        run = h2_run(self.root)
        rows = (run / "measurements.tsv").read_text(encoding="utf-8").splitlines()
        cells = rows[1].split("\t")
        cells[5] = "124"
        (run / "measurements.tsv").write_text("\n".join([rows[0], "\t".join(cells)]) + "\n", encoding="utf-8")
        report = bench.Report(run)
        self.assertIsNone(report.cells[("A", "plaintext-h2c")].rps)
        self.assertTrue([v for v in report.violations(False) if "did not end within its time limit" in v])


def h2load_text(done: int, succeeded: int, errored: int, c2xx: int, c3xx: int, c4xx: int, c5xx: int,
                seconds: int = 2, mean: str = "13.56ms") -> str:
    """An h2load output of a timed run: req/s as h2load computes it, the streams closed without a reset (every
    status) over the main duration; failed = the 4xx/5xx answers and the errored streams."""
    rps = (done - errored) / seconds
    return (f"spawning thread #0: 8 total client(s). Timing-based test with 1s of warm-up time and {seconds}s of "
            f"main duration for measurements.\n\nfinished in {seconds + 1}.00s, {rps:.2f} req/s, 1.00MB/s\n"
            f"requests: {done} total, {done} started, {done} done, {succeeded} succeeded, "
            f"{c4xx + c5xx + errored} failed, {errored} errored, 0 timeout\n"
            f"status codes: {c2xx} 2xx, {c3xx} 3xx, {c4xx} 4xx, {c5xx} 5xx\n"
            "                     min         max         mean         sd        +/- sd\n"
            f"time for request:      201us     41.98ms     {mean}      4.01ms    71.55%\n")


class GoodputTest(TempDirTest):
    def test_wrk_non_2xx_answers_do_not_count_in_req_s_ratios_or_cpu(self):
        # 8,000 answers in 4 s (wrk: 2,000 req/s), 2,000 of them non-2xx/3xx: 6,000 good, 1,500 req/s; 1 CPU-s
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(2_000, 8_000, non2xx=2_000), 100)],
                                           "Ref": [(wrk_text(3_000, 12_000), 100)]})
        report = bench.Report(run)
        cell = report.cells[("A", "plaintext-c256")]
        r = cell.rounds[0][1]
        self.assertEqual((r.requests, r.non2xx, r.good_requests), (8_000, 2_000, 6_000))
        self.assertEqual(cell.rps, 1_500)
        self.assertEqual(cell.req_per_cpu_s, 6_000)
        self.assertAlmostEqual(cell.ms_cpu_per_request, 1000 / 6_000)
        self.assertAlmostEqual(report.ratio(cell), 0.5)  # 1,500 against the reference's 3,000
        row = scenario_row(report.markdown(1, ""), "A")
        self.assertEqual(row[2], "1,500")
        self.assertEqual(row[7], "**2000**")  # the errors beside the figure, not in it
        self.assertEqual(row[9:11], ["6,000", "0.167"])
        rows = csv_rows(report)
        self.assertEqual((rows["A"]["req_per_s"], rows["A"]["non_2xx"]), ("1500.00", "2000"))
        self.assertIn("1,500 ⚠", table_rows(report.markdown(1, ""), "A")[0][1])
        self.assertIn("req/s = (requests − non-2xx/3xx answers) ÷ the generator's window", report.markdown(1, ""))

    def test_a_round_of_errors_only_costs_infinite_cpu_per_request(self):
        run = synthetic_run(self.root, 2, {"A": [(wrk_text(125, 500, non2xx=500), 900),
                                                 (wrk_text(2_000, 8_000, non2xx=4_000), 400)]})
        report = bench.Report(run)
        cell = report.cells[("A", "plaintext-c256")]
        self.assertEqual(cell.rps_range, (0, 1_000))
        self.assertEqual(cell.per_cpu_values(), [0, 1_000])
        self.assertEqual(cell.ms_cpu_per_request, float("inf"))
        self.assertEqual(scenario_row(report.markdown(1, ""), "A")[10], "∞ ≈")

    def test_h2load_5xx_and_errored_streams_are_beside_the_goodput(self):
        # 20,000 streams done in the 2 s window: 14,000 2xx, 1,000 3xx (good), 4,000 5xx, 990 4xx, 10 errored
        text = h2load_text(20_000, 15_000, 10, 14_000, 1_000, 990, 4_000)
        r = bench.parse_result(text)
        self.assertEqual(r.rps, 9_995)  # h2load's own: (20,000 - 10) / 2, its 4xx/5xx included
        self.assertEqual((r.good_requests, r.non2xx, r.socket_errors, r.failed), (15_000, 4_990, 10, 5_000))
        self.assertAlmostEqual(r.good_rps, 7_500)
        run = h2_run(self.root)
        (run / "raw" / "A" / "plaintext-h2c-round1.txt").write_text(text, encoding="utf-8")
        report = bench.Report(run)
        cell = report.cells[("A", "plaintext-h2c")]
        self.assertAlmostEqual(cell.rps, 7_500)
        self.assertAlmostEqual(cell.ms_cpu_per_request, 1000 * 1.5 / 15_000)
        self.assertEqual((cell.total("non2xx"), cell.total("socket_errors")), (4_990, 10))


def _one_line(root: Path) -> Path:
    one = root / "one.log"
    one.write_text("1700000000000000\t200\t100000\n", encoding="utf-8")
    return one


class WaitingBoundTest(TempDirTest):
    WAITING = {"connections": "1000", "wait_ms": "100", "path": "/delay/100", "blocking": "1"}

    def test_little_s_law_beside_the_window_with_its_resolution(self):
        # Window: 19,000 requests in 2.05 s = 9,268 req/s (92.7%); Little: 1,000 / 0.1015 s = 9,852 (98.5%); one wait's
        # worth, 1,000 of 19,000 requests = 5.3%: the two differ by 6.3% of the window's figure, more than that (≠).
        # Fair: 20,000 in 2.02 s = 9,901 (99.0%) against 1,000 / 0.101 s = 9,901: they agree.
        run = synthetic_run(self.root, 1, {
            "Window": [(wrk_text(19_000 / 2.05, 19_000, avg_ms=101.5, seconds=2.05), 100)],
            "Fair": [(wrk_text(20_000 / 2.02, 20_000, avg_ms=101.0, seconds=2.02), 100)]},
            scenario="delay100-c1000", scenario_fields=self.WAITING)
        report = bench.Report(run)
        window, fair = report.cells[("Window", "delay100-c1000")], report.cells[("Fair", "delay100-c1000")]
        self.assertAlmostEqual(report.little_rps(window), 1000 / 0.1015)
        self.assertAlmostEqual(report.bound_resolution(window), 1000 / 19_000)
        self.assertTrue(report.bound_disagrees(window))
        self.assertFalse(report.bound_disagrees(fair))
        md = report.markdown(1, "")
        self.assertEqual(table_rows(md, "Window")[-1], ["Window", "9,268", "92.7%", "9,852", "98.5%", "5.3%", "≠"])
        self.assertEqual(table_rows(md, "Fair")[-1], ["Fair", "9,901", "99.0%", "9,901", "99.0%", "5.0%", ""])
        self.assertIn("Window and Little's law agree within the resolution or 1% in 1 of 2 rows.", md)
        self.assertIn("(a 2 s cell of 100 ms waits at 1,000 connections completes 19,000 or 20,000: 5.3%)", md)
        rows = csv_rows(report)
        self.assertEqual((rows["Window"]["little_req_per_s"], rows["Window"]["bound_resolution"],
                          rows["Window"]["bound_disagrees"]), ("9852.22", "0.0526", "1"))

    def test_little_s_law_counts_good_answers_only_and_h2_streams(self):
        # half the answers non-2xx: Little's law gives the goodput, half of 1,000 / 0.1 s
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(10_000, 20_000, avg_ms=100.0, non2xx=10_000, seconds=2.0), 100)]},
                            scenario="delay100-c1000", scenario_fields=self.WAITING)
        report = bench.Report(run)
        self.assertAlmostEqual(report.little_rps(report.cells[("A", "delay100-c1000")]), 5_000)
        # h2: 8 connections x 125 streams in flight, 100.45 ms mean: 1,000 / 0.10045 s
        run = h2_run(self.root / "h2", streams="125", path="/delay/100", wait_ms="100")
        (run / "raw" / "A" / "plaintext-h2c-round1.txt").write_text(
            h2load_text(20_000, 20_000, 0, 20_000, 0, 0, 0, mean="100.45ms"), encoding="utf-8")
        report = bench.Report(run)
        cell = report.cells[("A", "plaintext-h2c")]
        self.assertAlmostEqual(report.little_rps(cell), 1000 / 0.10045)
        self.assertAlmostEqual(report.bound_resolution(cell), 1000 / 20_000)
        self.assertFalse(report.bound_disagrees(cell))  # 10,000 against 9,955: 0.45%, within 5%

    def test_a_fixed_window_with_spread_starts_is_the_goodput_and_states_its_resolution(self):
        # bench-window.lua: 16,900 good answers in its 1.7 s window = 9,941 req/s (99.4%), where wrk's whole run
        # counted 19,000 in 2.04 s (93.1%); Little: 1,000 / 0.1006 s = 9,940: within 1%. Resolution: the 10
        # connections started in one millisecond of the spread (1,000 / 100 ms) of 16,900 = 0.06%.
        # Late: the window's 15,000 in 1.7 s (8,824) against Little's 9,940: 11% apart, more than 1% (≠).
        window = "window: 16900 good, 0 other answers in 1.700 s\n"
        late = "window: 15000 good, 25 other answers in 1.700 s\n"
        run = synthetic_run(self.root, 1, {
            "Spread": [(wrk_text(19_000 / 2.04, 19_000, avg_ms=100.6, seconds=2.04) + window, 100)],
            "Late": [(wrk_text(19_000 / 2.04, 19_000, avg_ms=100.6, seconds=2.04) + late, 100)]},
            scenario="delay100-c1000", scenario_fields=self.WAITING)
        report = bench.Report(run)
        spread, late_cell = report.cells[("Spread", "delay100-c1000")], report.cells[("Late", "delay100-c1000")]
        r = spread.rounds[0][1]
        self.assertEqual((r.window_good, r.window_other, r.window_seconds), (16_900, 0, 1.7))
        self.assertAlmostEqual(spread.rps, 16_900 / 1.7)
        self.assertAlmostEqual(report.bound_resolution(spread), 10 / 16_900)
        self.assertFalse(report.bound_disagrees(spread))
        self.assertTrue(report.bound_disagrees(late_cell))
        md = report.markdown(1, "")
        self.assertEqual(table_rows(md, "Spread")[-1], ["Spread", "9,941", "99.4%", "9,940", "99.4%", "0.06%", ""])
        self.assertIn("bench-window.lua", md)
        self.assertIn("Window and Little's law agree within the resolution or 1% in 1 of 2 rows.", md)

    def test_h2load_s_log_gives_a_window_without_whole_waves(self):
        # 1,000 streams in lockstep, every request 100.5 ms, started at 0 (in the warm-up) and logged when they end:
        # the timed window [0.05 s, 2.05 s] holds 20 waves' ends (20,000 requests: h2load's count, 100% of the
        # bound), where the streams did 2 s / 0.1005 s = 19.9 requests each. The window: one longest request
        # (100.5 ms) inside the first and last logged end, its edges splitting requests by their time inside.
        log = self.root / "h2load.log"
        lines, epoch = [], 1_700_000_000_000_000
        for k in range(21):
            start = epoch + k * 100_500
            if 50_000 <= (k + 1) * 100_500 <= 2_050_000:
                lines += [f"{start}\t200\t100500\n"] * 1000
        log.write_text("".join(lines), encoding="utf-8")
        line = bench.h2load_window_line(log)
        r = bench.WrkResult()
        bench._parse_window(line, r)
        self.assertAlmostEqual(r.window_seconds, (20 * 100_500 - 1 * 100_500 - 2 * 100_500) / 1e6, places=3)
        self.assertAlmostEqual(r.good_rps, 1000 / 0.1005, delta=1)  # 9,950: the streams' own rate, no wave
        self.assertEqual(r.window_other, 0)
        self.assertIsNone(bench.h2load_window_line(_one_line(self.root)))  # one request holds no window

    def test_strict_fails_a_waiting_round_without_its_fixed_window(self):
        # a waiting scenario counted by bench-window.lua: a round without its window line would quietly fall back
        # to wrk's whole-run count, in whole waves; --quick (strict) fails it, an older run is only read
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(9_300, 19_000, avg_ms=100.5, seconds=2.04), 100)]},
                            scenario="delay100-c1000", scenario_fields=self.WAITING)
        report = bench.Report(run)
        self.assertIn("A delay100-c1000: a round has no fixed window (bench-window.lua or h2load's log printed no "
                      "'window:' line)", report.violations(strict=True))
        self.assertEqual(report.violations(strict=False), [])

    def test_little_s_law_above_a_capped_pool_is_named_as_the_misreading(self):
        # ThreadPoolServer's 2 workers answer at most 2 / 0.1 s = 20 req/s on /blocking/100: the window says 20,
        # Little's law from the answered requests' mean (5 s) 1,000 / 5 = 200, above the cap
        blocking = {"connections": "1000", "wait_ms": "100", "path": "/blocking/100", "blocking": "1"}
        window = "window: 34 good, 0 other answers in 1.700 s\n"
        run = synthetic_run(self.root, 1, {"ThreadPoolServer": [(wrk_text(20, 40, avg_ms=5000.0, seconds=2.0) + window, 10)]},
                            scenario="blocking100-c1000", scenario_fields=blocking)
        md = bench.Report(run).markdown(1, "")
        self.assertIn("(2 threads) 20 req/s", md)
        self.assertIn("≠ on a capped row: Little's law, from the mean latency of the requests answered, puts "
                      "ThreadPoolServer above the most its threads can answer", md)

    def test_a_scenario_that_does_not_wait_has_no_little_figure(self):
        report = bench.Report(synthetic_run(self.root, 1, {"A": [(wrk_text(2_000, 8_000), 100)]}))
        self.assertIsNone(report.little_rps(report.cells[("A", "plaintext-c256")]))
        self.assertNotIn("Little's law", report.markdown(1, "").split("## plaintext-c256", 1)[1])


class CpuMarksTest(TempDirTest):
    def test_cpu_ns_is_used_when_present_and_ticks_otherwise(self):
        # A: cpu_ns 1.5e9 in both rounds (its 40 ticks ignored, and no coarse mark); B: the column empty, 40 ticks at
        # clk_tck 100 = 0.4 s, fewer than 100 ticks: coarse
        rounds = [(wrk_text(2_000, 8_000), 40), (wrk_text(2_000, 8_000), 40)]
        run = synthetic_run(self.root, 2, {"A": rounds, "B": rounds},
                            cpu_ns={("A", 1): "1500000000", ("A", 2): "1500000000", ("B", 1): "", ("B", 2): "-"})
        report = bench.Report(run)
        a, b = report.cells[("A", "plaintext-c256")], report.cells[("B", "plaintext-c256")]
        self.assertEqual(a.cpu_s, 1.5)
        self.assertAlmostEqual(a.ms_cpu_per_request, 1000 * 1.5 / 8_000)
        self.assertFalse(a.cpu_coarse)
        self.assertEqual(b.cpu_s, 0.4)
        self.assertTrue(b.cpu_coarse)
        md = report.markdown(1, "")
        self.assertEqual(scenario_row(md, "A")[10], "0.188")
        self.assertEqual(scenario_row(md, "B")[10], "0.050 ±")
        self.assertIn("± = coarse: a round's server CPU was read in fewer than 100 clock ticks", md)
        rows = csv_rows(report)
        self.assertEqual([rows[n]["cpu_source"] for n in "AB"], ["ns", "ticks"])
        self.assertEqual([rows[n]["cpu_coarse"] for n in "AB"], ["0", "1"])

    def test_a_run_without_the_column_reads_ticks_and_enough_of_them_is_not_coarse(self):
        run = synthetic_run(self.root, 1, {"A": [(wrk_text(2_000, 8_000), 250)]})
        cell = bench.Report(run).cells[("A", "plaintext-c256")]
        self.assertEqual(cell.cpu_s, 2.5)
        self.assertFalse(cell.cpu_coarse)

    def test_cpu_per_request_spread_over_20_percent_is_noisy(self):
        # the same requests per round, CPU 10, 13 and 11 s: spread 3 over a median of 11 (27%); req/s steady
        steady = [(wrk_text(2_000, 8_000), 1000), (wrk_text(2_000, 8_000), 1300), (wrk_text(2_000, 8_000), 1100)]
        calm = [(wrk_text(2_000, 8_000), 1000), (wrk_text(2_000, 8_000), 1050), (wrk_text(2_000, 8_000), 1100)]
        report = bench.Report(synthetic_run(self.root, 3, {"A": steady, "B": calm}))
        a, b = report.cells[("A", "plaintext-c256")], report.cells[("B", "plaintext-c256")]
        self.assertTrue(a.cpu_noisy)
        self.assertFalse(a.noisy)
        self.assertFalse(b.cpu_noisy)
        md = report.markdown(1, "")
        self.assertEqual(scenario_row(md, "A")[10], "1.38 ≈")
        self.assertEqual(scenario_row(md, "B")[10], "1.31")
        self.assertIn("≈ beside CPU ms/req = its rounds spread over 20% of its median", md)


class TrendTest(TempDirTest):
    def test_round_1_lowest_is_counted_per_row_and_marked(self):
        rising = [(wrk_text(90_000, 360_000), 400), (wrk_text(100_000, 400_000), 400), (wrk_text(95_000, 380_000), 400)]
        falling = [(wrk_text(100_000, 400_000), 400), (wrk_text(90_000, 360_000), 400), (wrk_text(95_000, 380_000), 400)]
        report = bench.Report(synthetic_run(self.root, 3, {"A": rising, "B": falling}))
        self.assertTrue(report.cells[("A", "plaintext-c256")].round1_lowest)
        self.assertFalse(report.cells[("B", "plaintext-c256")].round1_lowest)
        md = report.markdown(1, "")
        trend = md.split("## Per-round trend", 1)[1].split("\n## ", 1)[0]
        self.assertIn("Round 1 lowest in 1 of 2 cells", trend)
        self.assertIn("chance alone makes round 1 the lowest in about 1 in 3 cells", trend)
        self.assertIn("Per row: A 1 of 1, B 0 of 1.", trend)
        self.assertEqual(scenario_row(md, "A")[3], "90,000–100,000 ↗")
        self.assertEqual(scenario_row(md, "B")[3], "90,000–100,000")
        self.assertIn("95,000 ↗", table_rows(md, "A")[0][1])
        self.assertIn("round 1 lowest in 1 of 2 cells", md)  # the overview's legend
        self.assertEqual([csv_rows(report)[n]["round1_lowest"] for n in "AB"], ["1", "0"])

    def test_a_tie_or_a_single_round_is_not_a_trend(self):
        tie = [(wrk_text(90_000, 360_000), 400), (wrk_text(90_000, 360_000), 400)]
        report = bench.Report(synthetic_run(self.root, 2, {"A": tie}))
        self.assertFalse(report.cells[("A", "plaintext-c256")].round1_lowest)
        single = bench.Report(synthetic_run(self.root / "one", 1, {"A": [(wrk_text(90_000, 360_000), 400)]}))
        self.assertIn("no per-round trend to show", single.markdown(1, ""))


if __name__ == "__main__":
    unittest.main()
