# SPDX-License-Identifier: Apache-2.0
"""Names the tests that failed in a Maven build, from the surefire XML reports under a tree, so that
the end of a long build log (often all a CI system keeps) says which test failed and why:
  python3 scripts/lib/failed_tests.py <root>
Prints one block per failing or erroring test case (class, test, message, the first stack lines and
the start of the test's own output) and exits 1 if there was any, else 0.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

STACK_LINES = 12
OUTPUT_CHARS = 3000


def failures(root: Path) -> list[dict[str, str]]:
    """Every failed or erroring <testcase> in the TEST-*.xml reports under root's target/ folders."""
    found = []
    for report in sorted(root.glob("**/target/surefire-reports/TEST-*.xml")):
        try:
            suite = ET.parse(report).getroot()
        except ET.ParseError as e:
            found.append({"module": _module(root, report), "test": report.name, "kind": "unreadable report",
                          "message": str(e), "stack": "", "output": ""})
            continue
        for case in suite.iter("testcase"):
            for kind in ("failure", "error"):
                for problem in case.findall(kind):
                    output = "".join((case.findtext(tag) or "") for tag in ("system-out", "system-err"))
                    found.append({
                        "module": _module(root, report),
                        "test": f"{case.get('classname', '?')}.{case.get('name', '?')}",
                        "kind": kind,
                        "message": problem.get("message") or problem.get("type") or "",
                        "stack": "\n".join((problem.text or "").strip().splitlines()[:STACK_LINES]),
                        "output": output.strip()[:OUTPUT_CHARS],
                    })
    return found


def _module(root: Path, report: Path) -> str:
    """The module folder, relative to root: the path before target/surefire-reports."""
    return str(report.parent.parent.parent.relative_to(root))


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else ".").resolve()
    found = failures(root)
    for f in found:
        print(f"FAILED TEST [{f['module']}] {f['test']} ({f['kind']}): {f['message']}")
        if f["stack"]:
            print("  " + f["stack"].replace("\n", "\n  "))
        if f["output"]:
            print("  its output:\n    " + f["output"].replace("\n", "\n    "))
    if found:
        print(f"{len(found)} failed test(s); the reports are under */target/surefire-reports")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
