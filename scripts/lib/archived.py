# SPDX-License-Identifier: Apache-2.0
"""Superseded runs under results/ kept in git history instead of the tree (issue 42: a light repository).

    python3 scripts/lib/archived.py archive PATH...    # PATH: results/<run> (a directory) or a file under results/
    python3 scripts/lib/archived.py restore PATH [DEST] # the archived PATH as it was, into DEST (default: its place)
    python3 scripts/lib/archived.py list
    python3 scripts/lib/archived.py relink             # mark links to archived paths added to a page since

`archive` needs PATH committed and unchanged: it records it in results/archived.md (the path, the commit that
holds it, its size), removes it from the tree (git rm) and turns every link to it in the repository's pages
(README.md, docs/*.md, results/**/*.md) into its text followed by "(archived)", a link to results/archived.md.
`restore` is `git archive <commit> PATH | tar -x`: the run's summaries and raw archive byte for byte, for
reading or for the claims check (scripts/lib/claims.py restores a cited run that left the tree), in any full
clone; a shallow clone lacks the commits and says so."""
from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
INDEX = "results/archived.md"
HEADER = """# Archived runs

Runs that later ones superseded leave the tree to keep the repository light (issue 42); each stays in git
history, byte for byte, at the commit beside it. The pages that quoted them still do, their links marked
"(archived)", and the claims check (`scripts/lib/claims.py`) restores a cited run from here to recompute its
figures. To read one:

```sh
python3 scripts/lib/archived.py restore results/<run>          # back in its place (untracked)
python3 scripts/lib/archived.py restore results/<run> /tmp/x   # or elsewhere: /tmp/x/results/<run>
```

| path | commit | bytes |
|---|---|---:|
"""
ROW = re.compile(r"^\| `([^`]+)` \| `([0-9a-f]{7,40})` \| ([\d,]+) \|\s*$")
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?\s*\)")


class ArchiveError(Exception):
    pass


def git(*args: str, root: Path = ROOT, data: bool = False):
    r = subprocess.run(["git", "-C", str(root), *args], capture_output=True)
    if r.returncode != 0:
        raise ArchiveError(f"git {' '.join(args)}: {r.stderr.decode(errors='replace').strip()}")
    return r.stdout if data else r.stdout.decode()


def entries(root: Path = ROOT) -> dict[str, str]:
    """path -> commit, from results/archived.md."""
    index = root / INDEX
    if not index.is_file():
        return {}
    found = {}
    for line in index.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def archived_entry(path: str, root: Path = ROOT) -> tuple[str, str] | None:
    """(archived path, commit) holding `path` (the path itself or one under an archived directory), or None."""
    path = path.rstrip("/")
    for archived, commit in entries(root).items():
        if path == archived or path.startswith(archived + "/"):
            return archived, commit
    return None


def restore(path: str, dest: Path, root: Path = ROOT) -> Path:
    """Extracts archived `path` (as committed) under dest, at dest/path; returns that."""
    entry = archived_entry(path, root)
    if entry is None:
        raise ArchiveError(f"{path} is not in {INDEX}")
    archived, commit = entry
    try:
        data = git("archive", "--format=tar", commit, "--", archived, root=root, data=True)
    except ArchiveError as e:
        raise ArchiveError(f"{archived} was archived at commit {commit}, which this clone cannot read "
                           f"(a shallow clone? fetch its history): {e}") from None
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        # git's own archive of a committed path; the "data" filter where this Python has it (3.11.4, 3.12)
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:
            tar.extractall(dest)
    return dest / path


def pages(root: Path) -> list[Path]:
    tracked = git("ls-files", "-z", root=root).split("\0")
    return [root / f for f in tracked if f.endswith(".md") and f != INDEX
            and (f == "README.md" or f.startswith("docs/") or f.startswith("results/"))]


def unlink_text(page: Path, archived: list[str], root: Path) -> str:
    """The page's text with each link into an archived path replaced by its text and "(archived)"."""
    rel_page = PurePosixPath(page.relative_to(root).as_posix())
    to_index = os.path.relpath(root / INDEX, page.parent).replace(os.sep, "/")

    def target_path(target: str) -> str:
        path = target.split("#", 1)[0]
        parts: list[str] = []
        for part in (rel_page.parent / path).parts:
            if part == "..":
                if parts:
                    parts.pop()
            elif part != ".":
                parts.append(part)
        return "/".join(parts)

    def replace(m: re.Match) -> str:
        bang, text, target = m.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            return m.group(0)
        name = target_path(target)
        if not any(name == a or name.startswith(a + "/") for a in archived):
            return m.group(0)
        if bang:
            return f"[{text} (chart archived)]({to_index})"
        return f"{text} ([archived]({to_index}))"

    out, fenced = [], False
    for line in page.read_text(encoding="utf-8").splitlines(keepends=True):
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
        if fenced:
            out.append(line)
        else:
            # a link that begins inside a code span (`...`) is text, not a link; one whose text holds a code
            # span ([`run`](run/)) is a link
            spans = [m.span() for m in re.finditer(r"`+[^`]*`+", line)]
            out.append(LINK.sub(lambda m: m.group(0) if any(a < m.start() < b for a, b in spans) else replace(m),
                                line))
    return "".join(out)


def relink(root: Path = ROOT) -> list[Path]:
    """Marks every page's links into an archived path (a page edited since, or one archive missed); returns the
    pages changed."""
    archived = list(entries(root))
    changed = []
    for page in pages(root):
        if page.is_file():
            new = unlink_text(page, archived, root)
            if new != page.read_text(encoding="utf-8"):
                page.write_text(new, encoding="utf-8")
                changed.append(page)
    return changed


def archive(paths: list[str], root: Path = ROOT) -> None:
    paths = [p.rstrip("/") for p in paths]
    for p in paths:
        if not p.startswith("results/") or not git("ls-files", "--", p, root=root).strip():
            raise ArchiveError(f"{p}: not a tracked path under results/")
        if git("status", "--porcelain", "--", p, root=root).strip():
            raise ArchiveError(f"{p}: has uncommitted changes; commit it first")
        if archived_entry(p, root):
            raise ArchiveError(f"{p}: already archived")
    commit = git("rev-parse", "HEAD", root=root).strip()
    index = root / INDEX
    text = index.read_text(encoding="utf-8") if index.is_file() else HEADER
    for p in paths:
        size = sum(os.lstat(root / f).st_size for f in git("ls-files", "-z", "--", p, root=root).split("\0") if f)
        text += f"| `{p}` | `{commit}` | {size:,} |\n"
    index.write_text(text, encoding="utf-8")
    git("rm", "-r", "-q", "--", *paths, root=root)
    git("add", "--", INDEX, root=root)
    relink(root)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("archive")
    a.add_argument("paths", nargs="+")
    r = sub.add_parser("restore")
    r.add_argument("path")
    r.add_argument("dest", nargs="?")
    sub.add_parser("list")
    sub.add_parser("relink", help="mark the pages' links into archived paths")
    args = p.parse_args(argv)
    try:
        if args.cmd == "archive":
            archive(args.paths)
        elif args.cmd == "restore":
            dest = Path(args.dest) if args.dest else ROOT
            print(restore(args.path, dest))
        elif args.cmd == "relink":
            for page in relink():
                print(page.relative_to(ROOT))
        else:
            for path, commit in entries().items():
                print(f"{path}\t{commit}")
    except ArchiveError as e:
        print(f"archived: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
