# SPDX-License-Identifier: Apache-2.0
"""Checks a staged Maven release offline, the way Maven Central would check the bundle, before
anything is uploaded:
  python3 scripts/lib/release_check.py STAGED_DIR --root REPO_ROOT --modules core,blocking-server,...
      [--compare OTHER_STAGED_DIR] [--signed]
STAGED_DIR is the file: repository that scripts/release.sh deploys into (Central's layout,
dev/spindle/<artifactId>/<version>/...). It checks the layout (exactly the published modules, one
release version), the files of each artifact and their checksums (and signatures with --signed), the
POMs against Central's requirements, and the jars (classes with their sources, LICENSE and NOTICE,
javadoc). With --compare it also checks that a second build staged the very same bytes.
Prints one line per problem to stderr and exits 1 if there was any, 0 if none, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

GROUP = "dev.spindle"
POM_NS = "http://maven.apache.org/POM/4.0.0"
CHECKSUMS = {"md5": hashlib.md5, "sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}
REQUIRED_CHECKSUMS = ("md5", "sha1")
JAR_CLASSIFIERS = ("", "-sources", "-javadoc")
SIGNATURE_START = b"-----BEGIN PGP SIGNATURE-----"
MAX_DIFFERENCES = 20
METADATA = "maven-metadata.xml"


class UsageError(ValueError):
    """The command line names something that is not there; main exits 2."""


def artifact_ids(root: Path, modules: list[str]) -> list[str]:
    """The artifactId of each module directory: the <project>'s own, not its <parent>'s."""
    ids = []
    for module in modules:
        pom = root / module / "pom.xml"
        try:
            project = ET.parse(pom).getroot()
        except (OSError, ET.ParseError) as e:
            raise UsageError(f"{pom}: cannot read the module's POM: {e}") from e
        artifact = project.findtext(f"{{{POM_NS}}}artifactId")
        if not artifact or not artifact.strip():
            raise UsageError(f"{pom}: no <artifactId>")
        ids.append(artifact.strip())
    return ids


def check(staged: Path, root: Path, modules: list[str], compare: Path | None,
          signed: bool) -> tuple[list[str], list[str]]:
    """(problems, info lines) of the release staged under staged; no problem means Central would take it."""
    if not staged.is_dir():
        raise UsageError(f"{staged}: not a directory")
    if compare is not None and not compare.is_dir():
        raise UsageError(f"{compare}: not a directory")
    published = artifact_ids(root, modules)
    problems: list[str] = []
    versions = _check_layout(staged, published, problems)
    staged_ids = [a for a in published if a in versions]
    for artifact in staged_ids:
        _check_artifact(staged, artifact, versions[artifact], set(staged_ids), signed, problems)

    compared = _compare(staged, compare, problems) if compare is not None else None
    info = []
    release = sorted(set(versions.values()))
    if not problems and len(release) == 1:
        info.append(f"{len(staged_ids)} artifacts of {GROUP} at {release[0]} pass ({', '.join(staged_ids)})")
    if compared is not None:
        info.append(f"the two builds are byte-identical ({compared} files)")
    return problems, info


def _rel(staged: Path, path: Path) -> str:
    return path.relative_to(staged).as_posix()


def _check_layout(staged: Path, published: list[str], problems: list[str]) -> dict[str, str]:
    """Problems of the directory tree; the version directory of each published artifact staged once."""
    group_dir = staged.joinpath(*GROUP.split("."))
    for path in sorted(p for p in staged.rglob("*") if p.is_file()):
        if not path.is_relative_to(group_dir):
            problems.append(f"{_rel(staged, path)}: outside {GROUP}, not part of this release")
        elif path.name == METADATA:
            problems.append(f"{_rel(staged, path)}: maven-metadata.xml is Central's to write")
    if not group_dir.is_dir():
        problems.append(f"{_rel(staged, group_dir)}: missing, nothing of {GROUP} is staged")
        return {}

    versions: dict[str, str] = {}
    for entry in sorted(group_dir.iterdir()):
        if entry.name.startswith(METADATA):
            continue
        if not entry.is_dir():
            problems.append(f"{_rel(staged, entry)}: not an artifact directory")
        elif entry.name not in published:
            problems.append(f"{_rel(staged, entry)}: {entry.name} is not a published module")
        else:
            found = []
            for child in sorted(entry.iterdir()):
                if child.is_dir():
                    found.append(child.name)
                elif not child.name.startswith(METADATA):  # reported above, with its checksums
                    problems.append(f"{_rel(staged, child)}: not a version directory")
            if len(found) != 1:
                problems.append(f"{_rel(staged, entry)}: {len(found)} version directories "
                                f"({', '.join(found) or 'none'}), a release stages exactly one")
            else:
                versions[entry.name] = found[0]
    for artifact in published:
        if not (group_dir / artifact).is_dir():
            problems.append(f"{_rel(staged, group_dir / artifact)}: published module not staged")

    distinct = sorted(set(versions.values()))
    if len(distinct) > 1:
        problems.append(f"{_rel(staged, group_dir)}: the artifacts are at different versions "
                        f"({', '.join(f'{a} {v}' for a, v in sorted(versions.items()))})")
    for version in distinct:
        if version.endswith("-SNAPSHOT"):
            problems.append(f"{_rel(staged, group_dir)}: version {version} is a -SNAPSHOT, not a release")
    return versions


def _check_artifact(staged: Path, artifact: str, version: str, staged_ids: set[str], signed: bool,
                    problems: list[str]) -> None:
    folder = staged.joinpath(*GROUP.split("."), artifact, version)
    base = f"{artifact}-{version}"
    pom_path = folder / f"{base}.pom"
    project = None
    if pom_path.is_file():
        try:
            project = ET.parse(pom_path).getroot()
        except ET.ParseError as e:
            problems.append(f"{_rel(staged, pom_path)}: not well-formed XML: {e}")
    else:
        problems.append(f"{_rel(staged, pom_path)}: missing")

    packaging = None
    if project is not None:
        packaging = (_find(project, "packaging") or "jar").strip()
        if packaging not in ("jar", "pom"):
            problems.append(f"{_rel(staged, pom_path)}: packaging {packaging!r} is neither jar nor pom")
    # Without a readable POM the packaging is unknown: take the jars that are there, require none.
    jars = [f"{base}{c}.jar" for c in JAR_CLASSIFIERS] if packaging != "pom" else []
    allowed = {pom_path.name, *jars}
    required = {pom_path.name, *jars} if packaging == "jar" else {pom_path.name}

    _check_files(staged, folder, allowed, required, signed, problems)
    if project is not None:
        _check_pom(staged, pom_path, project, artifact, version, packaging, staged_ids, problems)
    if packaging != "pom":
        _check_jars(staged, folder, base, problems)


def _check_files(staged: Path, folder: Path, allowed: set[str], required: set[str], signed: bool,
                 problems: list[str]) -> None:
    """Each artifact file with its checksums (and signature), and no file that is none of those."""
    present = {p.name for p in folder.iterdir()}
    for name in sorted(required - present):
        problems.append(f"{_rel(staged, folder / name)}: missing")
    for name in sorted(present):
        path = folder / name
        if name.startswith(METADATA):
            continue
        if path.is_dir():
            problems.append(f"{_rel(staged, path)}: unexpected directory in a version directory")
            continue
        artifact, satellite = _split_satellite(name)
        if artifact not in allowed:
            # its checksums and signature are noise: name the file once
            if not satellite:
                problems.append(f"{_rel(staged, path)}: not a release artifact")
            elif artifact not in present:
                problems.append(f"{_rel(staged, path)}: not a release artifact (and there is no {artifact})")
            continue
        if satellite:
            continue
        for signature in ("", ".asc"):
            target = folder / (name + signature)
            if not target.is_file():
                continue
            for algorithm in CHECKSUMS:
                sums = folder / f"{target.name}.{algorithm}"
                if sums.is_file():
                    _check_digest(staged, target, sums, algorithm, problems)
                elif algorithm in REQUIRED_CHECKSUMS and not signature:
                    problems.append(f"{_rel(staged, sums)}: missing")
        signature = folder / f"{name}.asc"
        if signature.is_file():
            with signature.open("rb") as f:
                if not f.read(len(SIGNATURE_START)) == SIGNATURE_START:
                    problems.append(f"{_rel(staged, signature)}: not an ASCII-armoured PGP signature")
        elif signed:
            problems.append(f"{_rel(staged, signature)}: missing, the release is to be signed")


def _split_satellite(name: str) -> tuple[str, str]:
    """("a.jar", ".asc.sha1") for "a.jar.asc.sha1": the artifact file a checksum or signature is of."""
    satellite = ""
    stem, _, ext = name.rpartition(".")
    if stem and ext in CHECKSUMS:
        name, satellite = stem, "." + ext
    if name.endswith(".asc"):
        name, satellite = name[:-4], ".asc" + satellite
    return name, satellite


def _check_digest(staged: Path, target: Path, sums: Path, algorithm: str, problems: list[str]) -> None:
    # the file holds the hex digest, optionally followed by whitespace and the file's name
    words = sums.read_text(encoding="ascii", errors="replace").split()
    expected = words[0].lower() if words else ""
    actual = CHECKSUMS[algorithm](target.read_bytes()).hexdigest()
    if expected != actual:
        problems.append(f"{_rel(staged, sums)}: {algorithm} {expected or '(empty)'} does not match "
                        f"{target.name} ({actual})")


def _tag(element: ET.Element) -> str:
    return element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""


def _children(element: ET.Element, path: str) -> list[ET.Element]:
    """The elements at a slash-separated path of local names, whatever the POM's namespace."""
    found = [element]
    for step in path.split("/"):
        found = [c for e in found for c in e if _tag(c) == step]
    return found


def _find(element: ET.Element, path: str) -> str | None:
    found = _children(element, path)
    return found[0].text if found else None


def _nonempty(element: ET.Element, path: str) -> bool:
    return bool((_find(element, path) or "").strip())


def _check_pom(staged: Path, pom_path: Path, project: ET.Element, artifact: str, version: str,
               packaging: str | None, staged_ids: set[str], problems: list[str]) -> None:
    where = _rel(staged, pom_path)
    if _tag(project) != "project":
        problems.append(f"{where}: the root element is <{_tag(project)}>, not <project>")
        return
    namespace = project.tag.partition("}")[0][1:] if project.tag.startswith("{") else ""
    if namespace != POM_NS:
        problems.append(f"{where}: namespace {namespace or '(none)'!r}, not {POM_NS}")

    # the parent POM is not published, so a <parent> would not resolve for users
    if _children(project, "parent"):
        problems.append(f"{where}: has a <parent>, which is not published (flatten the POM)")
    # flattened POMs write groupId explicitly; Central wants it there
    for field, wanted in (("groupId", GROUP), ("artifactId", artifact), ("version", version)):
        value = (_find(project, field) or "").strip()
        if value != wanted:
            problems.append(f"{where}: <{field}> is {value or '(missing)'!r}, not {wanted!r}")
    for field in ("name", "description", "url"):
        if not _nonempty(project, field):
            problems.append(f"{where}: <{field}> missing or empty (Central requires it)")

    licenses = _children(project, "licenses/license")
    if not licenses:
        problems.append(f"{where}: no <licenses>/<license> (Central requires one)")
    for i, license in enumerate(licenses, 1):
        for field in ("name", "url"):
            if not _nonempty(license, field):
                problems.append(f"{where}: license {i} has no <{field}>")
    developers = _children(project, "developers/developer")
    if not developers:
        problems.append(f"{where}: no <developers>/<developer> (Central requires one)")
    for i, developer in enumerate(developers, 1):
        if not (_nonempty(developer, "name") or _nonempty(developer, "id")):
            problems.append(f"{where}: developer {i} has neither <name> nor <id>")
    scm = _children(project, "scm")
    for field in ("url", "connection"):
        if not (scm and _nonempty(scm[0], field)):
            problems.append(f"{where}: no <scm>/<{field}> (Central requires it)")

    for path, text in _texts(project, _tag(project)):
        if "${" in text:
            problems.append(f"{where}: unresolved {text.strip()!r} in {path}")

    sections = (("dependencies/dependency", "dependency"),
                ("dependencyManagement/dependencies/dependency", "managed dependency"))
    managed = set()
    for section, kind in sections:
        for dependency in _children(project, section):
            group = (_find(dependency, "groupId") or "").strip()
            name = (_find(dependency, "artifactId") or "").strip()
            dep_version = (_find(dependency, "version") or "").strip()
            scope = (_find(dependency, "scope") or "").strip()
            label = f"{kind} {group or '?'}:{name or '?'}"
            if not group or not name:
                problems.append(f"{where}: {label} lacks a groupId or artifactId")
            if kind == "managed dependency" and group == GROUP:
                managed.add(name)
            if scope == "test":
                problems.append(f"{where}: {label} has scope test, which a published POM does not keep")
            if "${" in dep_version:  # named above
                continue
            if not dep_version:
                problems.append(f"{where}: {label} has no version")
            elif dep_version.endswith("-SNAPSHOT"):
                problems.append(f"{where}: {label} is at a -SNAPSHOT version {dep_version}")
            elif group == GROUP and (name not in staged_ids or dep_version != version):
                problems.append(f"{where}: {label}:{dep_version} is not one of the staged artifacts "
                                f"(at {version}: {', '.join(sorted(staged_ids))})")

    # the BOM is the one artifact of packaging pom: it must manage every other published one
    if packaging == "pom":
        for missing in sorted(staged_ids - {artifact} - managed):
            problems.append(f"{where}: the BOM's <dependencyManagement> does not list {missing}")


def _texts(element: ET.Element, path: str):
    """(path, text) of every text and attribute value under element; repeated elements numbered."""
    if element.text and element.text.strip():
        yield path, element.text
    for name, value in element.attrib.items():
        yield f"{path}/@{name.rpartition('}')[2]}", value
    counts: dict[str, int] = {}
    for child in element:
        tag = _tag(child)
        if not tag:  # comments and processing instructions
            continue
        counts[tag] = counts.get(tag, 0) + 1
        siblings = sum(1 for c in element if _tag(c) == tag)
        yield from _texts(child, f"{path}/{tag}[{counts[tag]}]" if siblings > 1 or tag == "dependency"
                          else f"{path}/{tag}")


def _entries(staged: Path, jar: Path, problems: list[str]) -> list[str] | None:
    """The file entries (not directories) of a zip, or None when it is missing or unreadable."""
    if not jar.is_file():
        return None
    try:
        with zipfile.ZipFile(jar) as z:
            return [n for n in z.namelist() if not n.endswith("/")]
    except (zipfile.BadZipFile, OSError) as e:
        problems.append(f"{_rel(staged, jar)}: not a readable zip: {e}")
        return None


def _source_of(class_entry: str) -> str:
    """dev/x/A.java for dev/x/A$B.class; module-info.java for module-info.class."""
    if class_entry.startswith("META-INF/versions/"):
        class_entry = class_entry.split("/", 3)[3]
    folder, _, name = class_entry.rpartition("/")
    top = name[:-len(".class")].split("$", 1)[0]
    return f"{folder}/{top}.java" if folder else f"{top}.java"


def _check_jars(staged: Path, folder: Path, base: str, problems: list[str]) -> None:
    jar, sources, javadoc = (folder / f"{base}{c}.jar" for c in JAR_CLASSIFIERS)
    classes_entries = _entries(staged, jar, problems)
    source_entries = _entries(staged, sources, problems)
    javadoc_entries = _entries(staged, javadoc, problems)

    if classes_entries is not None:
        classes = [n for n in classes_entries if n.endswith(".class")]
        if not classes:
            problems.append(f"{_rel(staged, jar)}: no .class in the jar")
        for legal in ("META-INF/LICENSE", "META-INF/NOTICE"):
            if legal not in classes_entries:
                problems.append(f"{_rel(staged, jar)}: no {legal} in the jar")
        if source_entries is not None:
            have = set(source_entries)
            missing: dict[str, list[str]] = {}
            for entry in classes:
                source = _source_of(entry)
                if source not in have:
                    missing.setdefault(source, []).append(entry)
            for source, entries in sorted(missing.items()):
                problems.append(f"{_rel(staged, sources)}: no {source}, the source of {', '.join(entries)}")
    if source_entries is not None and not any(n.endswith(".java") for n in source_entries):
        problems.append(f"{_rel(staged, sources)}: no .java in the sources jar")
    if javadoc_entries is not None:
        if not javadoc_entries:
            problems.append(f"{_rel(staged, javadoc)}: empty javadoc jar")
        elif "index.html" not in javadoc_entries:
            problems.append(f"{_rel(staged, javadoc)}: no index.html at the root of the javadoc jar")


def _is_signature(name: str) -> bool:
    return name.endswith(".asc") or ".asc." in name


def _compare(staged: Path, other: Path, problems: list[str]) -> int | None:
    """The number of files when the two trees are byte-identical, else None (and the differences named).

    Signatures are left out: one carries the time it was made, and only one of the builds may be signed.
    """
    ours = {_rel(staged, p) for p in staged.rglob("*") if p.is_file() and not _is_signature(p.name)}
    theirs = {_rel(other, p) for p in other.rglob("*") if p.is_file() and not _is_signature(p.name)}
    differences = []
    for path in sorted(ours | theirs):
        if path not in theirs:
            differences.append(f"{path}: only in {staged}, not in {other}")
        elif path not in ours:
            differences.append(f"{path}: only in {other}, not in {staged}")
        elif (staged / path).read_bytes() != (other / path).read_bytes():
            differences.append(f"{path}: differs between the two builds")
    problems.extend(differences[:MAX_DIFFERENCES])
    if len(differences) > MAX_DIFFERENCES:
        problems.append(f"{other}: and {len(differences) - MAX_DIFFERENCES} more differences")
    return None if differences else len(ours)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="release_check.py", description=__doc__.splitlines()[0])
    parser.add_argument("staged", type=Path, help="the staged repository (Central's layout)")
    parser.add_argument("--root", type=Path, required=True, help="the repository root, with the module POMs")
    parser.add_argument("--modules", required=True, help="published module directories, comma-separated")
    parser.add_argument("--compare", type=Path, help="a second build's staged repository, to be identical")
    parser.add_argument("--signed", action="store_true", help="require a .asc signature of every file")
    args = parser.parse_args(argv[1:])
    modules = [m for m in args.modules.split(",") if m.strip()]
    if not modules:
        parser.error("--modules names no module")
    try:
        problems, info = check(args.staged, args.root, [m.strip() for m in modules], args.compare, args.signed)
    except UsageError as e:
        print(f"release check: {e}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"release check: {problem}", file=sys.stderr)
    for line in info:
        print(f"release check: {line}")
    if problems:
        print(f"release check: {len(problems)} problem(s): {args.staged} is not fit for Maven Central",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
