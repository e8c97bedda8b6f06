# SPDX-License-Identifier: Apache-2.0
"""Every relative link of the repository's pages points at something tracked: README.md, docs/*.md and every
page under results/ (the run summaries link their charts, archives and tables; issue 42 moved some of
those into archives and must not have left a link behind). Needs git; skipped outside a checkout."""
from __future__ import annotations

import re
import subprocess
import unittest
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE = re.compile(r"`+[^`]*`+")


def tracked() -> list[str] | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [f for f in out.decode("utf-8").split("\0") if f]


def pages(files: list[str]) -> list[str]:
    return [f for f in files if f.endswith(".md") and (f == "README.md" or f.startswith(("docs/", "results/"))
                                                       and (f.count("/") == 1 or f.startswith("results/")))]


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of each markdown link outside code blocks and code spans."""
    found, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            found += [(number, m.group(1)) for m in LINK.finditer(CODE.sub("", line))]
    return found


def broken(files: list[str]) -> list[str]:
    """'page:line: target' of each relative link whose target is neither a tracked file nor a directory of one."""
    known = set(files)
    dirs = {str(PurePosixPath(f).parents[i]) for f in files for i in range(len(PurePosixPath(f).parents) - 1)}
    bad = []
    for page in pages(files):
        text = (ROOT / page).read_text(encoding="utf-8", errors="replace")
        for number, target in links(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                continue  # a URL, mail address or an anchor of the page itself
            path = target.split("#", 1)[0].split("?", 1)[0]
            resolved = PurePosixPath(page).parent / path
            parts: list[str] = []
            for part in resolved.parts:
                if part == "..":
                    if parts:
                        parts.pop()
                elif part != ".":
                    parts.append(part)
            name = "/".join(parts)
            if name not in known and name not in dirs and name != "":
                bad.append(f"{page}:{number}: {target}")
    return bad


class LinksTest(unittest.TestCase):
    def test_links_finds_links_outside_code_only(self) -> None:
        text = "see [a](a.md) and ![c](charts/x.svg)\n`[no](no.md)`\n```\n[no](no.md)\n```\n[b](b.md#part)\n"
        self.assertEqual(links(text), [(1, "a.md"), (1, "charts/x.svg"), (6, "b.md#part")])

    def test_every_relative_link_of_the_pages_points_at_a_tracked_file(self) -> None:
        files = tracked()
        if files is None:
            self.skipTest("not a git checkout")
        self.assertEqual(broken(files), [])


if __name__ == "__main__":
    unittest.main()
