# SPDX-License-Identifier: Apache-2.0
"""Tests of ws_idle.py's parsing and verdicts (standard library only):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
"""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

import ws_idle as wi

PARALLEL = """12345:
 PSYoungGen      total 76288K, used 655K [0x00000000fab00000, 0x0000000100000000, 0x0000000100000000)
  eden space 65536K, 1% used [0x00000000fab00000,0x00000000faba3dc0,0x00000000feb00000)
  from space 10752K, 0% used [0x00000000ff580000,0x00000000ff580000,0x0000000100000000)
 ParOldGen       total 175104K, used 24272K [0x00000000f0000000, 0x00000000fab00000, 0x00000000fab00000)
  object space 175104K, 13% used [0x00000000f0000000,0x00000000f17b4388,0x00000000fab00000)
 Metaspace       used 9138K, committed 9344K, reserved 1114112K
  class space    used 900K, committed 1024K, reserved 1048576K
"""
G1 = """12345:
 garbage-first heap   total 262144K, used 10240K [0x00000000f0000000, 0x0000000100000000)
  region size 1024K, 1 young (1024K), 0 survivors (0K)
 Metaspace       used 9138K, committed 9344K, reserved 1114112K
"""
MEGS = " def new generation   total 2M, used 1M [0x0)\n tenured generation   total 10M, used 3M [0x0)\n"

STATUS = "Name:\tjava\nVmRSS:\t  188620 kB\nThreads:\t23\n"
STAT = "4242 (java thread) S 1 4242 4242 0 -1 4194560 9000 0 0 0 150 25 0 0 20 0 23 0 100 0 0\n"


def passing(**over) -> dict:
    r = {"connections": 100, "opened": 100, "probes": {"sent": 100, "ok": 100}, "health": {"status": 200},
         "closes": {"ok": 100, "codes": {"1000": 100}}, "oom": False, "alive": True, "idle_cpu_pct": 0.4,
         "heap_per_conn": 9000.0, "base": {"heap": 5 * wi.MIB}, "closed": {"heap": 6 * wi.MIB}}
    r.update(over)
    return r


class ParseTest(unittest.TestCase):
    def test_heap_used(self):
        for name, text, want in [
            ("parallel: young + old, not metaspace", PARALLEL, (655 + 24272) * wi.KIB),
            ("g1 region heap", G1, 10240 * wi.KIB),
            ("serial in megabytes", MEGS, 4 * wi.MIB),
            ("no heap lines", "12345:\nsomething else\n", None),
        ]:
            with self.subTest(name):
                self.assertEqual(wi.parse_heap_used(text), want)

    def test_status_and_stat(self):
        self.assertEqual(wi.parse_status(STATUS), {"rss": 188620 * wi.KIB, "threads": 23})
        self.assertEqual(wi.parse_cpu_ticks(STAT), 175)   # a command name with a space

    def test_numbers(self):
        for name, got, want in [
            ("cpu: 50 ticks over 10 s at 100 Hz", wi.cpu_percent(50, 10.0, 100), 5.0),
            ("cpu: no time", wi.cpu_percent(50, 0, 100), 0.0),
            ("per conn", wi.per_conn(1000, 21000, 10), 2000.0),
            ("per conn: nothing opened", wi.per_conn(1000, 2000, 0), None),
            ("per conn: a measure missing", wi.per_conn(None, 2000, 5), None),
            ("bytes", wi.fmt_bytes(19.2 * wi.KIB), "19.2 KiB"),
            ("bytes: none", wi.fmt_bytes(None), "n/a"),
        ]:
            with self.subTest(name):
                self.assertEqual(got, want)


class VerdictTest(unittest.TestCase):
    def test_cases(self):
        for name, r, ok, why in [
            ("all good", passing(), True, ""),
            ("did not start", {"started": False}, False, "did not start"),
            ("connections failed", passing(opened=90, closes={"ok": 90}), False, "10 of 100 connections failed"),
            ("probe lost", passing(probes={"sent": 100, "ok": 99}), False, "99 of 100 probes"),
            ("health down", passing(health={"status": None, "error": "TimeoutError: "}), False, "GET /plaintext"),
            ("close code", passing(closes={"ok": 98, "codes": {"1000": 98, "1006": 2}}), False, "2 closes"),
            ("oom", passing(oom=True), False, "OutOfMemoryError"),
            ("died", passing(alive=False), False, "exited"),
            ("busy idle", passing(idle_cpu_pct=5.0), False, "idle CPU 5.0"),
            ("fat connections", passing(heap_per_conn=12 * wi.KIB + 1), False, "heap per connection"),
            ("not released", passing(closed={"heap": 16 * wi.MIB}), False, "heap after close"),
            ("client error", passing(error="TimeoutError: "), False, "client error"),
        ]:
            with self.subTest(name):
                got_ok, got_why = wi.verdict(r)
                self.assertEqual(got_ok, ok)
                self.assertIn(why, "; ".join(got_why))


class ReportTest(unittest.TestCase):
    def test_report_writes_summaries_and_fails_on_oom(self):
        with tempfile.TemporaryDirectory() as d:
            run = Path(d)
            (run / "servers").write_text("Good\nBad\nAbsent\n")
            for name, out in [("Good", ""), ("Bad", "java.lang.OutOfMemoryError: Java heap space\n")]:
                (run / "raw" / name).mkdir(parents=True)
                r = passing(idle={"heap": 6 * wi.MIB, "rss": 90 * wi.MIB, "threads": 20}, idle_cpu_slices=[0.2, 1.5])
                (run / "raw" / name / "client.json").write_text(json.dumps(r))
                (run / "raw" / name / "server.err").write_text(out)
            self.assertEqual(wi.cmd_report(run, echo=False), 1)
            tsv = (run / "summary.tsv").read_text().splitlines()
            self.assertEqual(len(tsv), 4)
            self.assertIn("\tPASS\t", tsv[1])
            md = (run / "summary.md").read_text()
            self.assertIn("| Bad | 100/100 |", md)
            self.assertIn("| 0.40 (1.5) | PASS |", md)
            self.assertIn("- Bad: OutOfMemoryError", md)
            self.assertIn("- Absent: did not start", md)


if __name__ == "__main__":
    unittest.main()
