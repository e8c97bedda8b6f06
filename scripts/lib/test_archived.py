# SPDX-License-Identifier: Apache-2.0
"""archived.py: a run leaves the tree for git history, its links are marked, and it comes back byte for byte
(for readers and the claims check). Needs git."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import archived
import claims


def sh(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=True, text=True).stdout


@unittest.skipUnless(shutil.which("git"), "needs git")
class ArchivedTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name) / "repo"
        run = self.root / "results" / "2026-01-01T00-00-00Z"
        (run / "charts").mkdir(parents=True)
        (run / "summary.md").write_text("# a run\n", encoding="utf-8")
        (run / "charts" / "x.svg").write_bytes(b"<svg/>")
        (run / "raw.tar.gz").write_bytes(bytes(range(256)))
        (self.root / "results" / "README.md").write_text(
            "See [the run](2026-01-01T00-00-00Z/) and ![x](2026-01-01T00-00-00Z/charts/x.svg), "
            "[kept](kept.md), `[code](2026-01-01T00-00-00Z/)`, [`spanned`](2026-01-01T00-00-00Z/summary.md).\n```\n[fenced](2026-01-01T00-00-00Z/)\n```\n",
            encoding="utf-8")
        (self.root / "results" / "kept.md").write_text("kept\n", encoding="utf-8")
        (self.root / "docs").mkdir()
        (self.root / "docs" / "page.md").write_text(
            "[summary](../results/2026-01-01T00-00-00Z/summary.md#top) and [web](https://example.org/)\n",
            encoding="utf-8")
        sh(self.root.parent, "init", "-q", str(self.root))
        sh(self.root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
        sh(self.root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "runs")
        self.commit = sh(self.root, "rev-parse", "HEAD").strip()

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_archive_records_removes_and_marks_links_and_restore_brings_it_back(self) -> None:
        archived.archive(["results/2026-01-01T00-00-00Z/"], self.root)
        self.assertFalse((self.root / "results" / "2026-01-01T00-00-00Z").exists())
        self.assertEqual(sh(self.root, "ls-files", "results/2026-01-01T00-00-00Z"), "")
        self.assertEqual(archived.entries(self.root), {"results/2026-01-01T00-00-00Z": self.commit})
        self.assertIn(f"| `results/2026-01-01T00-00-00Z` | `{self.commit}` | 270 |",
                      (self.root / archived.INDEX).read_text(encoding="utf-8"))
        readme = (self.root / "results" / "README.md").read_text(encoding="utf-8")
        self.assertIn("See the run ([archived](archived.md)) and [x (chart archived)](archived.md), [kept](kept.md), "
                      "`[code](2026-01-01T00-00-00Z/)`, `spanned` ([archived](archived.md)).", readme)
        self.assertIn("[fenced](2026-01-01T00-00-00Z/)", readme)  # code blocks are left alone
        page = (self.root / "docs" / "page.md").read_text(encoding="utf-8")
        self.assertEqual(page, "summary ([archived](../results/archived.md)) and [web](https://example.org/)\n")

        dest = Path(self.tmp.name) / "out"
        got = archived.restore("results/2026-01-01T00-00-00Z/summary.md", dest, self.root)
        self.assertEqual(got.read_text(encoding="utf-8"), "# a run\n")
        self.assertEqual((dest / "results" / "2026-01-01T00-00-00Z" / "raw.tar.gz").read_bytes(), bytes(range(256)))

    def test_archive_refuses_a_changed_or_untracked_path_and_restore_an_unknown_one(self) -> None:
        (self.root / "results" / "2026-01-01T00-00-00Z" / "summary.md").write_text("edited\n", encoding="utf-8")
        with self.assertRaisesRegex(archived.ArchiveError, "uncommitted changes"):
            archived.archive(["results/2026-01-01T00-00-00Z"], self.root)
        with self.assertRaisesRegex(archived.ArchiveError, "not a tracked path"):
            archived.archive(["results/none"], self.root)
        with self.assertRaisesRegex(archived.ArchiveError, "not in results/archived.md"):
            archived.restore("results/none", Path(self.tmp.name), self.root)

    def test_a_commit_the_clone_lacks_is_named_in_the_error(self) -> None:
        (self.root / archived.INDEX).write_text(archived.HEADER + "| `results/gone` | `" + "0" * 40 + "` | 1 |\n",
                                                encoding="utf-8")
        with self.assertRaisesRegex(archived.ArchiveError, "archived at commit 0{40}, which this clone cannot read"):
            archived.restore("results/gone", Path(self.tmp.name), self.root)
        with self.assertRaisesRegex(claims.ClaimError, "which this clone cannot read"):
            claims.open_run(self.root / "results" / "gone", Path(self.tmp.name), self.root)


if __name__ == "__main__":
    unittest.main()
