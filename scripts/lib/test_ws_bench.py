# SPDX-License-Identifier: Apache-2.0
"""Tests of ws_bench.py's steady rule and cell figures (standard library only):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
"""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

import ws_bench as wb


def result(completions: int, cpu_s: float, window_s: float = 10.0, **over) -> dict:
    r = {"mode": "echo", "connections": 1000, "opened": 1000, "completions": completions, "window_s": window_s,
         "server_cpu_schedstat_s": cpu_s, "server_cpu_ticks_s": cpu_s, "client_cpu_s": window_s * 0.5,
         "latency_us": {"p50": 800, "p99": 2500}, "errors": {}}
    r.update(over)
    return r


class SteadyRule(unittest.TestCase):
    def test_fewer_than_three_windows_is_not_steady(self):
        self.assertFalse(wb.judge_steady([100.0, 100.0], 0, 50)[0])

    def test_three_close_windows_with_a_quiet_jit_are_steady(self):
        ok, why = wb.judge_steady([50.0, 99.0, 100.0, 101.0], 3, 50)
        self.assertTrue(ok, why)

    def test_a_wide_spread_is_not_steady(self):
        ok, why = wb.judge_steady([100.0, 80.0, 100.0], 0, 50)
        self.assertFalse(ok)
        self.assertIn("spread", why)

    def test_a_rise_within_the_spread_is_still_rising(self):
        ok, why = wb.judge_steady([94.0, 97.0, 100.0], 0, 50)
        self.assertFalse(ok)
        self.assertIn("rising", why)

    def test_a_busy_jit_is_not_steady(self):
        ok, why = wb.judge_steady([100.0, 100.0, 100.0], 400, 50)
        self.assertFalse(ok)
        self.assertIn("compiled", why)

    def test_a_missing_figure_is_not_steady(self):
        self.assertFalse(wb.judge_steady([100.0, None, 100.0], 0, 50)[0])


class WarmUpCell(unittest.TestCase):
    def cell(self, windows: list[tuple[int, float]], jstat: str) -> Path:
        d = Path(tempfile.mkdtemp())
        (d / "warmup.json").write_text(json.dumps(result(sum(c for c, _ in windows), 1.0, windows=[
            {"window_s": 5.0, "completions": c, "server_cpu_schedstat_s": cpu} for c, cpu in windows])))
        (d / "warmup.jstat.txt").write_text(jstat)
        return d

    JSTAT = ("Compiled Failed Invalid   Time   FailedType FailedMethod\n"
             "    2000      0       0     5.10          0\n"
             "    2012      0       0     5.20          0\n")

    def test_the_windows_and_the_last_jstat_interval_decide(self):
        ok, why = wb.cell_steady(self.cell([(50, 1.0), (100, 1.0), (101, 1.0), (99, 1.0)], self.JSTAT), 50)
        self.assertTrue(ok, why)
        self.assertIn("12 methods", why)

    def test_a_jit_still_compiling_is_not_steady(self):
        busy = self.JSTAT.replace("2012", "2400")
        self.assertFalse(wb.cell_steady(self.cell([(100, 1.0)] * 4, busy), 50)[0])

    def test_no_jstat_samples_is_not_steady(self):
        self.assertFalse(wb.cell_steady(self.cell([(100, 1.0)] * 4, ""), 50)[0])


class CellFigures(unittest.TestCase):
    def cell(self, rounds: list[dict], steady: str = "steady: after 3 runs") -> Path:
        d = Path(tempfile.mkdtemp()) / "NettyServer" / "ws-echo-c1000"
        d.mkdir(parents=True)
        for i, r in enumerate(rounds, 1):
            (d / f"round-{i}.json").write_text(json.dumps(r))
        (d / "steady.txt").write_text(steady + "\n")
        return d

    def test_the_figures_are_medians_of_the_rounds(self):
        c = wb.cell_summary(self.cell([result(100_000, 1.0), result(120_000, 1.0), result(110_000, 1.0)]))
        self.assertEqual(c["rounds"], 3)
        self.assertAlmostEqual(c["per_cpu_s"], 110_000)
        self.assertAlmostEqual(c["rate"], 11_000)
        self.assertEqual(c["per_cpu_rounds"], [100_000, 120_000, 110_000])

    def test_rounds_spread_over_ten_percent_are_noisy(self):
        c = wb.cell_summary(self.cell([result(100_000, 1.0), result(120_000, 1.0), result(110_000, 1.0)]))
        self.assertIn("noisy", c["flags"])
        c = wb.cell_summary(self.cell([result(100_000, 1.0), result(104_000, 1.0), result(102_000, 1.0)]))
        self.assertNotIn("noisy", c["flags"])

    def test_a_busy_generator_and_an_unsteady_warm_up_are_flagged(self):
        busy = result(100_000, 1.0, client_cpu_s=9.5)
        c = wb.cell_summary(self.cell([busy], steady="not steady: last 3 spread 30%"))
        self.assertIn("generator-bound", c["flags"])
        self.assertIn("not steady", c["flags"])

    def test_errors_and_missing_deliveries_add_up(self):
        c = wb.cell_summary(self.cell([result(1, 1.0, errors={"closed": 2}, missing_deliveries=5),
                                       result(1, 1.0, errors={"closed": 1}, open_failures={"timeout": 3})]))
        self.assertEqual(c["errors"], {"closed": 3, "missing deliveries": 5, "open: timeout": 3})

    def test_schedstat_is_preferred_and_ticks_are_the_fallback(self):
        self.assertEqual(wb.per_cpu_s(result(1000, 2.0, server_cpu_ticks_s=4.0)), 500)
        self.assertEqual(wb.per_cpu_s({"completions": 1000, "server_cpu_ticks_s": 4.0}), 250)
        self.assertIsNone(wb.per_cpu_s({"completions": 1000}))


if __name__ == "__main__":
    unittest.main()
