# SPDX-License-Identifier: Apache-2.0
"""A run's raw/ directory kept as one archive, raw.tar.gz, beside its summary.

A run committed under results/ holds thousands of raw files (every wrk output, log and warm-up
window); the repository tracks one archive per run instead. The archive also takes the run's
conformance/ directory (conformance/<row>.tsv, every case's status and message: data the report reads,
linked from no page), so a run's tracked files are its summaries, CSV, charts, environment, its small
TSV tables and this archive (issue 42). The archive is reproducible (sorted members, no owners, no
times), so packing the same directories twice gives the same bytes. Reports read raw/ and
conformance/: extracted() unpacks them for as long as they run and removes them afterwards.

  python3 scripts/lib/raw_archive.py pack RUN_DIR...     raw/ (+ conformance/) -> raw.tar.gz (both removed)
  python3 scripts/lib/raw_archive.py unpack RUN_DIR...   raw.tar.gz -> raw/, conformance/ (to read them by hand)
  python3 scripts/lib/raw_archive.py under DIR           pack every run below DIR that has a raw/
  python3 scripts/lib/raw_archive.py repack RUN_DIR...   an archive of raw/ alone packed again with the
                                                         run's conformance/ (the layout before issue 42)
"""
from __future__ import annotations

import contextlib
import gzip
import io
import shutil
import sys
import tarfile
from pathlib import Path
from typing import Iterator

ARCHIVE = "raw.tar.gz"
RAW = "raw"
CONFORMANCE = "conformance"
# the directories of a run that its archive holds, raw/ first; raw/ is required, the others optional
ARCHIVED = (RAW, CONFORMANCE)


def _members(raw: Path) -> list[Path]:
    return sorted(raw.rglob("*"), key=lambda p: p.relative_to(raw).as_posix())


def _archived(run: Path) -> list[Path]:
    """The directories of ARCHIVED that run holds, in that order."""
    return [run / name for name in ARCHIVED if (run / name).is_dir()]


def pack(run: Path) -> Path | None:
    """Writes run/raw.tar.gz from run/raw (and run/conformance, when there is one) and removes them;
    None when there is no raw/."""
    raw = run / RAW
    if not raw.is_dir():
        return None
    dirs = _archived(run)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in [p for d in dirs for p in [d] + _members(d)]:
            info = tar.gettarinfo(str(path), arcname=path.relative_to(run).as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            info.mode = 0o755 if info.isdir() else 0o644
            if info.isfile():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            elif info.isdir():
                tar.addfile(info)
            # sockets, FIFOs and links are not results: left out
    target = run / ARCHIVE
    with open(target, "wb") as out, gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as z:
        z.write(buf.getvalue())
    for d in dirs:
        _check(target, d)
    for d in dirs:
        shutil.rmtree(d)
    return target


def _check(archive: Path, directory: Path) -> None:
    """Every file of directory is in the archive with its size: refuse to delete what was not kept."""
    with tarfile.open(archive, "r:gz") as tar:
        sizes = {m.name: m.size for m in tar.getmembers() if m.isfile()}
    for path in _members(directory):
        if path.is_file() and not path.is_symlink():
            name = path.relative_to(directory.parent).as_posix()
            if sizes.get(name) != path.stat().st_size:
                raise RuntimeError(f"{archive}: {name} missing or of another size; {directory.name}/ kept")


def unpack(run: Path) -> list[str]:
    """Extracts run/raw.tar.gz into run/raw (and run/conformance when the archive holds one); the names
    of the directories it made, [] when there is no archive or raw/ exists already. A directory the
    archive holds that exists already (a run not yet repacked keeps conformance/ beside its archive)
    is left as it is and not extracted over."""
    archive = run / ARCHIVE
    if not archive.is_file() or (run / RAW).exists():
        return []
    with tarfile.open(archive, "r:gz") as tar:
        members = tar.getmembers()
        for m in members:
            # only what pack() writes: files and directories under raw/ or conformance/, never outside them
            parts = Path(m.name).parts
            if (not (m.isfile() or m.isdir()) or not parts or parts[0] not in ARCHIVED or ".." in parts
                    or Path(m.name).is_absolute()):
                raise RuntimeError(f"{archive}: unexpected member {m.name!r}")
        made = [name for name in ARCHIVED if not (run / name).exists() and any(Path(m.name).parts[0] == name for m in members)]
        tar.extractall(run, members=[m for m in members if Path(m.name).parts[0] in made])
    return made


@contextlib.contextmanager
def extracted(run: Path) -> Iterator[Path]:
    """raw/ (and conformance/) present for the block: as they are, or unpacked from raw.tar.gz and
    removed afterwards."""
    unpacked = unpack(run)
    try:
        yield run
    finally:
        for name in unpacked:
            shutil.rmtree(run / name, ignore_errors=True)


def repack(run: Path) -> bool:
    """A run whose archive holds raw/ alone, with a conformance/ beside it: both packed into the archive
    again (conformance/ then removed). False when there is nothing to do."""
    if not (run / ARCHIVE).is_file() or not (run / CONFORMANCE).is_dir() or (run / RAW).exists():
        return False
    if unpack(run) != [RAW]:
        raise RuntimeError(f"{run / ARCHIVE}: expected raw/ alone in it")
    pack(run)
    return True


def runs_under(root: Path) -> list[Path]:
    """The run directories below root that hold a raw/ directory (a raw/ inside a raw/ is data)."""
    found = []
    for raw in sorted(root.rglob(RAW)):
        if raw.is_dir() and RAW not in raw.relative_to(root).parts[:-1]:
            found.append(raw.parent)
    return found


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("pack", "unpack", "under", "repack"):
        print("usage: raw_archive.py pack|unpack|repack RUN_DIR... | under DIR", file=sys.stderr)
        return 2
    cmd, dirs = argv[0], [Path(d) for d in argv[1:]]
    if cmd == "under":
        dirs = [run for d in dirs for run in runs_under(d)]
        cmd = "pack"
    for run in dirs:
        if cmd == "repack":
            print(f"{run}: {'conformance/ packed into ' + ARCHIVE if repack(run) else 'nothing to repack'}", file=sys.stderr)
        elif cmd == "pack":
            made = pack(run)
            print(f"{run}: {'packed into ' + ARCHIVE if made else 'no raw/'}", file=sys.stderr)
        else:
            made = unpack(run)
            print(f"{run}: {'unpacked into ' + ', '.join(m + '/' for m in made) if made else 'nothing to unpack (no archive, or raw/ exists)'}",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
