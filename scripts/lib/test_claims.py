# SPDX-License-Identifier: Apache-2.0
"""claims: every figure of docs/claims.tsv recomputed from raw; a figure edited by hand fails the check."""
import contextlib
import io
import shutil
import tempfile
import unittest
from pathlib import Path

import claims

ROOT = claims.ROOT


def claim_of(all_claims, claim_id):
    return next(c for c in all_claims if c.id == claim_id)


class ClaimsTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.claims = claims.read_claims(claims.CLAIMS)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_the_tree_as_committed_passes(self) -> None:
        self.assertEqual(claims.check(self.claims, ROOT), [])
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(claims.main([]), 0)

    def test_a_figure_edited_by_hand_in_the_prose_fails(self) -> None:
        copy = self.dir / "README.md"
        text = (ROOT / "results" / "README.md").read_text(encoding="utf-8")
        self.assertIn("| IoUringServer | 9,788 (9,781–9,801) |", text)
        copy.write_text(text.replace("| IoUringServer | 9,788 (9,781–9,801) |", "| IoUringServer | 9,798 (9,781–9,801) |"),
                        encoding="utf-8")
        failures = claims.check(self.claims, ROOT, {"results/README.md": str(copy)})
        self.assertTrue(failures)
        self.assertTrue(all("not found in results/README.md" in f for f in failures), failures)
        self.assertIn("i40-iouringserver-remote-tls100-c1000-rps ", "\n".join(failures))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(claims.main(["--file", f"results/README.md={copy}"]), 1)
        self.assertIn("FAIL  i40-iouringserver-remote-tls100-c1000-rps ", err.getvalue())

    def test_a_figure_edited_in_prose_and_claim_alike_fails_on_the_recomputed_value(self) -> None:
        text = (ROOT / "README.md").read_text(encoding="utf-8")
        copy = self.dir / "README.md"
        copy.write_text(text.replace("IoUringServer answers 218k plaintext", "IoUringServer answers 228k plaintext"),
                        encoding="utf-8")
        claim = claim_of(self.claims, "readme-iouring-plaintext")
        claim.quoted, claim.context = "228k", "IoUringServer answers 228k plaintext"
        failures = claims.check([claim], ROOT, {"README.md": str(copy)})
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("quoted '228k', recomputed from raw '218k'", failures[0])

    def test_a_cited_run_that_is_missing_fails(self) -> None:
        claim = claim_of(self.claims, "readme-iouring-plaintext")
        claim.run = "results/2026-12-04T21-33-51Z"
        failures = claims.check([claim], ROOT)
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("run directory", failures[0])

    def test_a_run_without_its_raw_archive_fails(self) -> None:
        claim = claim_of(self.claims, "readme-iouring-plaintext")
        run = self.dir / claim.run
        shutil.copytree(ROOT / claim.run, run, ignore=shutil.ignore_patterns("raw.tar.gz", "charts"))
        (self.dir / "README.md").write_text((ROOT / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
        failures = claims.check([claim], self.dir)
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("no raw.tar.gz", failures[0])

    def test_a_source_document_part_is_read_from_its_ab_outputs(self) -> None:
        ratio = claim_of(self.claims, "seed001-pool-vs-single-static")
        median = claim_of(self.claims, "seed001-pool-static")
        self.assertEqual(claims.check([ratio, median], ROOT), [])
        run = claims.open_run(ROOT / median.run, self.dir, ROOT)
        self.assertIsInstance(run, claims.SeedRun)
        self.assertEqual(len(run.values("ThreadPoolServer/static-timed-c8", "rps")), 3)  # the 3 runs of 10 s
        median.quoted = median.context = "| thread pool, static → ThreadPoolServer | about 8,000 (max average about 5 ms) | 3,017 | 22,439"
        median.quoted = "22,439"
        failures = claims.check([median], ROOT)
        self.assertTrue(any("quoted '22,439', recomputed from raw '22,349'" in f for f in failures), failures)

    def test_a_known_mismatch_must_still_be_the_recomputed_value(self) -> None:
        claim = claim_of(self.claims, "i28c-jdk-cpu-async")
        self.assertEqual(claims.check([claim], ROOT), [])
        # the prose quotes another figure than raw gives: passes only while `known` is what raw gives
        copy = self.dir / "README.md"
        text = claims.squash((ROOT / claim.file).read_text(encoding="utf-8"))
        copy.write_text(text.replace(claim.context, claim.context.replace("52%", "53%")), encoding="utf-8")
        claim.quoted, claim.context = "53%", claim.context.replace("52%", "53%")
        overrides = {claim.file: str(copy)}
        claim.known = "52%"
        self.assertEqual(claims.check([claim], ROOT, overrides), [])
        claim.known = "51%"
        failures = claims.check([claim], ROOT, overrides)
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("recomputed '52%'", failures[0])
        # the prose fixed, `known` left set: fails until it is cleared
        claim.quoted, claim.context, claim.known = "52%", claim.context.replace("53%", "52%"), "52%"
        failures = claims.check([claim], ROOT)
        self.assertEqual(len(failures), 1, failures)
        self.assertIn("clear its `known` column", failures[0])

    def test_ranges_and_formats(self) -> None:
        self.assertEqual(claims.format_value("{lo:.0f}-{hi:.0f}%", {"lo": 92.3, "hi": 93.1}), "92-93%")
        self.assertEqual(claims.format_value("{v/1e3:.0f}k", {"v": 131478.1}), "131k")
        self.assertEqual(claims.format_value("{up(v, 1):.1f}", {"v": 41.25}), "41.3")
        self.assertEqual(claims.format_value("{round(v, 3) * 1000:.0f} µs", {"v": 0.0205}), "21 µs")
        self.assertEqual(claims.format_value("{v:.2f} ms", {"v": float("inf")}), "∞ ms")
        with self.assertRaises(claims.ClaimError):
            claims.evaluate("__import__('os')", {}, {})

    def test_goodput_and_little_s_law_are_recomputed_from_raw(self) -> None:
        # the headline run's delay100-c1000: ThreadPoolServer's 5,452 non-2xx answers are out of its req/s, and the
        # event loops' window share (93%) sits under Little's law (99%), more than one wait's worth (5.3%) apart
        run = claims.open_run(ROOT / "results/2026-11-26T16-53-06Z", self.dir, ROOT)  # archived: restored from git
        f = run.functions()
        self.assertEqual(f"{f['rps']('ThreadPoolServer', 'delay100-c1000'):,.0f}", "1,722")
        self.assertEqual(f"{f['bound_pct']('IoUringServer', 'delay100-c1000'):.1f}", "93.1")
        self.assertEqual(f"{f['little_pct']('IoUringServer', 'delay100-c1000'):.1f}", "99.0")
        self.assertEqual(f"{f['bound_resolution_pct']('IoUringServer', 'delay100-c1000'):.1f}", "5.3")
        with self.assertRaises(claims.ClaimError):
            f["little_pct"]("IoUringServer", "plaintext-c256")  # no bound: it does not wait


if __name__ == "__main__":
    unittest.main()
