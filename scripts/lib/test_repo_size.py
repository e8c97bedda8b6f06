# SPDX-License-Identifier: Apache-2.0
"""The repository stays light (issue 42): at most 2,000 tracked files, and results/ at most 30% of the tracked
bytes (the sum of the tracked files' sizes, as `git ls-files -z | xargs -0 du -cb` counts them). Runs that later
ones superseded leave the tree for git history (scripts/lib/archived.py, results/archived.md) to keep it so.
Needs git; skipped outside a checkout."""
from __future__ import annotations

import os
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_FILES = 2000
RESULTS_SHARE = 0.30      # issue 42


def measure() -> tuple[int, int, int] | None:
    """(tracked files, tracked bytes, bytes under results/), or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    files = [f for f in out.decode("utf-8").split("\0") if f]
    total = results = 0
    for f in files:
        path = ROOT / f
        size = os.lstat(path).st_size if os.path.lexists(path) else 0  # deleted but not yet staged: 0
        total += size
        if f.startswith("results/"):
            results += size
    return len(files), total, results


class RepoSizeTest(unittest.TestCase):
    def setUp(self) -> None:
        measured = measure()
        if measured is None:
            self.skipTest("not a git checkout")
        self.files, self.total, self.results = measured

    def test_at_most_2000_tracked_files(self) -> None:
        self.assertLessEqual(self.files, MAX_FILES, f"{self.files} tracked files (issue 42: at most {MAX_FILES})")

    def test_results_within_its_share_of_the_tracked_bytes(self) -> None:
        share = self.results / self.total
        self.assertLessEqual(share, RESULTS_SHARE,
                             f"results/ is {self.results:,} of {self.total:,} tracked bytes ({share:.1%}; issue 42: at "
                             f"most {RESULTS_SHARE:.0%}): archive superseded runs (scripts/lib/archived.py archive)")


if __name__ == "__main__":
    unittest.main()
