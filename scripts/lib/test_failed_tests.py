# SPDX-License-Identifier: Apache-2.0
"""Tests of failed_tests.py on synthetic surefire reports (standard library only):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
"""

from __future__ import annotations

import io
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

import failed_tests

PASSING = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="dev.spindle.A" tests="1" failures="0" errors="0" skipped="0">
  <testcase name="works" classname="dev.spindle.A" time="0.1"/>
</testsuite>
"""

FAILING = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="dev.spindle.B" tests="3" failures="1" errors="1" skipped="0">
  <testcase name="fine" classname="dev.spindle.B" time="0.1"/>
  <testcase name="countsConnections" classname="dev.spindle.B" time="0.2">
    <failure message="expected 1 but was 2" type="org.opentest4j.AssertionFailedError">org.opentest4j.AssertionFailedError: expected 1 but was 2
	at dev.spindle.B.countsConnections(B.java:42)</failure>
    <system-out>07:00:00 WARN a hint</system-out>
  </testcase>
  <testcase name="throws" classname="dev.spindle.B" time="0.3">
    <error type="java.io.IOException">java.io.IOException: reset</error>
  </testcase>
</testsuite>
"""


class FailedTestsTest(unittest.TestCase):
    def tree(self, reports: dict[str, str]) -> Path:
        root = Path(tempfile.mkdtemp())
        for path, text in reports.items():
            file = root / path
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(text)
        return root

    def test_passing_reports_name_nothing(self) -> None:
        root = self.tree({"core/target/surefire-reports/TEST-dev.spindle.A.xml": PASSING})
        self.assertEqual(failed_tests.failures(root), [])
        with redirect_stdout(io.StringIO()) as out:
            self.assertEqual(failed_tests.main(["x", str(root)]), 0)
        self.assertEqual(out.getvalue(), "")

    def test_failures_and_errors_are_named_with_module_message_and_output(self) -> None:
        root = self.tree({
            "core/target/surefire-reports/TEST-dev.spindle.A.xml": PASSING,
            "blocking-server/target/surefire-reports/TEST-dev.spindle.B.xml": FAILING,
        })
        found = failed_tests.failures(root)
        self.assertEqual([(f["module"], f["test"], f["kind"]) for f in found], [
            ("blocking-server", "dev.spindle.B.countsConnections", "failure"),
            ("blocking-server", "dev.spindle.B.throws", "error"),
        ])
        self.assertEqual(found[0]["message"], "expected 1 but was 2")
        self.assertIn("B.java:42", found[0]["stack"])
        self.assertEqual(found[0]["output"], "07:00:00 WARN a hint")
        self.assertEqual(found[1]["message"], "java.io.IOException")
        with redirect_stdout(io.StringIO()) as out:
            self.assertEqual(failed_tests.main(["x", str(root)]), 1)
        self.assertIn("FAILED TEST [blocking-server] dev.spindle.B.countsConnections (failure): expected 1 but was 2",
                      out.getvalue())
        self.assertIn("2 failed test(s)", out.getvalue())

    def test_an_unreadable_report_is_named(self) -> None:
        root = self.tree({"nio-servers/target/surefire-reports/TEST-dev.spindle.C.xml": "<testsuite"})
        found = failed_tests.failures(root)
        self.assertEqual(len(found), 1)
        self.assertEqual(found[0]["kind"], "unreadable report")


if __name__ == "__main__":
    unittest.main()
