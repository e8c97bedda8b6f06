"""Tests of bench.py's report on a small synthetic run directory (standard library only; no charts):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
"""

from __future__ import annotations

import csv
import tempfile
import unittest
from pathlib import Path

import bench

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
        self.assertEqual(overview_header[:2], ["server", "correct"])
        scenario_header = table_rows(md, "#")[0]
        self.assertEqual(scenario_header[:3], ["#", "server", "correct"])
        # skips count in neither figure
        for name, expected in (("Wrong", "1/3"), ("Right", "2/2"), ("Unchecked", "–")):
            self.assertEqual(table_rows(md, name)[0][1], expected, f"overview row of {name}")
            scenario_row = next(r for r in table_rows(md, "1") + table_rows(md, "2") + table_rows(md, "3") if r[1] == name)
            self.assertEqual(scenario_row[2], expected, f"scenario row of {name}")

    def test_the_failures_are_listed_under_the_tables_with_their_messages(self):
        md = self.report(CONFORMANCE).markdown(1, "")
        section = md.split("## Conformance failures", 1)[1]
        self.assertGreater(md.index("## Conformance failures"), md.index("## plaintext-c256"))
        self.assertIn("- **Wrong** — 1/3, 2 failed, 2 skipped (1 not run: the check's time budget ran out):", section)
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
        self.assertEqual(lines[1].split(), ["correct", "plaintext-c256"])
        scores = {line.split()[0]: line.split()[1] for line in lines[2:]}
        self.assertEqual(scores, {"Wrong": "1/3", "Right": "2/2", "Unchecked": "–"})

    def test_a_run_without_checks_has_no_column_and_no_section(self):
        md = self.report({"Right": None, "Unchecked": None}).markdown(1, "")
        self.assertEqual(table_rows(md, "server")[0], ["server", "plaintext-c256"])
        self.assertNotIn("correct", table_rows(md, "#")[0])
        self.assertNotIn("Conformance failures", md)


if __name__ == "__main__":
    unittest.main()
