# SPDX-License-Identifier: Apache-2.0
"""A run's raw/ directory kept as one archive, raw.tar.gz, beside its summary.

A run committed under results/ holds thousands of raw files (every wrk output, log and warm-up
window); the repository tracks one archive per run instead. The archive is reproducible (sorted
members, no owners, no times), so packing the same raw/ twice gives the same bytes. Reports read
raw/: extracted() unpacks it for as long as they run and removes it afterwards.

  python3 scripts/lib/raw_archive.py pack RUN_DIR...     raw/ -> raw.tar.gz (raw/ removed)
  python3 scripts/lib/raw_archive.py unpack RUN_DIR...   raw.tar.gz -> raw/ (to read it by hand)
  python3 scripts/lib/raw_archive.py under DIR           pack every run below DIR that has a raw/
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


def _members(raw: Path) -> list[Path]:
    return sorted(raw.rglob("*"), key=lambda p: p.relative_to(raw).as_posix())


def pack(run: Path) -> Path | None:
    """Writes run/raw.tar.gz from run/raw and removes raw/; None when there is no raw/."""
    raw = run / RAW
    if not raw.is_dir():
        return None
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in [raw] + _members(raw):
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
    _check(target, raw)
    shutil.rmtree(raw)
    return target


def _check(archive: Path, raw: Path) -> None:
    """Every file of raw/ is in the archive with its size: refuse to delete what was not kept."""
    with tarfile.open(archive, "r:gz") as tar:
        sizes = {m.name: m.size for m in tar.getmembers() if m.isfile()}
    for path in _members(raw):
        if path.is_file() and not path.is_symlink():
            name = path.relative_to(raw.parent).as_posix()
            if sizes.get(name) != path.stat().st_size:
                raise RuntimeError(f"{archive}: {name} missing or of another size; raw/ kept")


def unpack(run: Path) -> bool:
    """Extracts run/raw.tar.gz into run/raw; False when there is no archive or raw/ exists already."""
    archive = run / ARCHIVE
    if not archive.is_file() or (run / RAW).exists():
        return False
    with tarfile.open(archive, "r:gz") as tar:
        for m in tar.getmembers():
            # only what pack() writes: files and directories under raw/, never outside it
            parts = Path(m.name).parts
            if not (m.isfile() or m.isdir()) or not parts or parts[0] != RAW or ".." in parts or Path(m.name).is_absolute():
                raise RuntimeError(f"{archive}: unexpected member {m.name!r}")
        tar.extractall(run)
    return True


@contextlib.contextmanager
def extracted(run: Path) -> Iterator[Path]:
    """raw/ present for the block: as it is, or unpacked from raw.tar.gz and removed afterwards."""
    unpacked = unpack(run)
    try:
        yield run
    finally:
        if unpacked:
            shutil.rmtree(run / RAW, ignore_errors=True)


def runs_under(root: Path) -> list[Path]:
    """The run directories below root that hold a raw/ directory (a raw/ inside a raw/ is data)."""
    found = []
    for raw in sorted(root.rglob(RAW)):
        if raw.is_dir() and RAW not in raw.relative_to(root).parts[:-1]:
            found.append(raw.parent)
    return found


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("pack", "unpack", "under"):
        print("usage: raw_archive.py pack|unpack RUN_DIR... | under DIR", file=sys.stderr)
        return 2
    cmd, dirs = argv[0], [Path(d) for d in argv[1:]]
    if cmd == "under":
        dirs = [run for d in dirs for run in runs_under(d)]
        cmd = "pack"
    for run in dirs:
        if cmd == "pack":
            made = pack(run)
            print(f"{run}: {'packed into ' + ARCHIVE if made else 'no raw/'}", file=sys.stderr)
        else:
            print(f"{run}: {'unpacked into raw/' if unpack(run) else 'nothing to unpack (no archive, or raw/ exists)'}",
                  file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
