# SPDX-License-Identifier: Apache-2.0
"""raw_archive: raw/ (and conformance/) packed into one reproducible archive, read back while a report runs."""
import io
import tarfile
import tempfile
import unittest
from pathlib import Path

import raw_archive


def make_run(root: Path, name: str = "run") -> Path:
    run = root / name
    (run / "raw" / "MultiLoopServer").mkdir(parents=True)
    (run / "raw" / "MultiLoopServer" / "plaintext-round1.txt").write_text("Requests/sec: 1\n")
    (run / "raw" / "MultiLoopServer" / "warmup-start1.tsv").write_text("t_s\treq\n1\t2\n")
    (run / "raw" / "empty").mkdir()
    (run / "summary.md").write_text("# run\n")
    return run


class RawArchiveTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_pack_replaces_raw_with_one_archive_holding_every_file(self) -> None:
        run = make_run(self.root)
        self.assertEqual(raw_archive.pack(run), run / "raw.tar.gz")
        self.assertFalse((run / "raw").exists())
        self.assertTrue((run / "summary.md").exists())
        with tarfile.open(run / "raw.tar.gz") as tar:
            names = sorted(m.name for m in tar.getmembers())
            self.assertTrue(all(m.mtime == 0 and m.uid == 0 for m in tar.getmembers()))
        self.assertEqual(names, ["raw", "raw/MultiLoopServer", "raw/MultiLoopServer/plaintext-round1.txt",
                                 "raw/MultiLoopServer/warmup-start1.tsv", "raw/empty"])

    def test_the_same_raw_packs_to_the_same_bytes(self) -> None:
        a, b = make_run(self.root, "a"), make_run(self.root, "b")
        raw_archive.pack(a)
        raw_archive.pack(b)
        self.assertEqual((a / "raw.tar.gz").read_bytes(), (b / "raw.tar.gz").read_bytes())

    def test_extracted_gives_raw_back_for_the_block_only(self) -> None:
        run = make_run(self.root)
        raw_archive.pack(run)
        with raw_archive.extracted(run):
            self.assertEqual((run / "raw" / "MultiLoopServer" / "plaintext-round1.txt").read_text(), "Requests/sec: 1\n")
        self.assertFalse((run / "raw").exists())
        self.assertTrue((run / "raw.tar.gz").exists())

    def test_extracted_leaves_an_existing_raw_alone(self) -> None:
        run = make_run(self.root)
        with raw_archive.extracted(run):
            pass
        self.assertTrue((run / "raw" / "empty").is_dir())
        self.assertFalse(raw_archive.pack(self.root / "nothing-here"))

    def test_unpack_refuses_a_member_outside_raw(self) -> None:
        run = self.root / "run"
        run.mkdir()
        with tarfile.open(run / "raw.tar.gz", "w:gz") as tar:
            data = b"x"
            info = tarfile.TarInfo("../evil.txt")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        with self.assertRaises(RuntimeError):
            raw_archive.unpack(run)
        self.assertFalse((self.root / "evil.txt").exists())

    def test_pack_takes_conformance_along_and_extracted_gives_both_back(self) -> None:
        run = make_run(self.root)
        (run / "conformance").mkdir()
        (run / "conformance" / "MultiLoopServer.tsv").write_text("case\tstatus\nget\tpass\n")
        raw_archive.pack(run)
        self.assertFalse((run / "conformance").exists())
        with tarfile.open(run / "raw.tar.gz") as tar:
            self.assertIn("conformance/MultiLoopServer.tsv", tar.getnames())
        with raw_archive.extracted(run):
            self.assertEqual((run / "conformance" / "MultiLoopServer.tsv").read_text(), "case\tstatus\nget\tpass\n")
            self.assertTrue((run / "raw" / "empty").is_dir())
        self.assertFalse((run / "conformance").exists())
        self.assertFalse((run / "raw").exists())

    def test_repack_moves_a_conformance_beside_an_old_archive_into_it(self) -> None:
        run = make_run(self.root)
        raw_archive.pack(run)  # the layout before issue 42: raw/ alone in the archive
        (run / "conformance").mkdir()
        (run / "conformance" / "A.tsv").write_text("case\n")
        with raw_archive.extracted(run):  # a conformance/ beside the archive is left as it is
            self.assertTrue((run / "conformance" / "A.tsv").is_file())
        self.assertTrue((run / "conformance" / "A.tsv").is_file())
        self.assertTrue(raw_archive.repack(run))
        self.assertFalse((run / "conformance").exists())
        with tarfile.open(run / "raw.tar.gz") as tar:
            self.assertIn("conformance/A.tsv", tar.getnames())
            self.assertIn("raw/MultiLoopServer/plaintext-round1.txt", tar.getnames())
        self.assertFalse(raw_archive.repack(run))

    def test_runs_under_finds_nested_runs_once(self) -> None:
        make_run(self.root / "seed" / "x", "000")
        make_run(self.root / "seed" / "x", "001")
        (self.root / "seed" / "x" / "001" / "raw" / "raw").mkdir()
        self.assertEqual([p.name for p in raw_archive.runs_under(self.root)], ["000", "001"])


if __name__ == "__main__":
    unittest.main()
