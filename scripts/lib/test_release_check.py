# SPDX-License-Identifier: Apache-2.0
"""Tests of release_check.py on a small synthetic staged repository (standard library only):
  /usr/bin/python3 -m unittest discover -s scripts/lib -p 'test_*.py'
A valid repository must pass; each mutation of it must be named as a problem.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tempfile
import unittest
import zipfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Callable

import release_check

VERSION = "0.1.0"
MODULES = ["demo", "bom"]
JAR = f"dev/spindle/spindle-demo/{VERSION}/spindle-demo-{VERSION}"
BOM = f"dev/spindle/spindle-bom/{VERSION}/spindle-bom-{VERSION}"

# the module's own artifactId comes after the parent's, which the reader must not take
MODULE_POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>dev.spindle</groupId>
    <artifactId>spindle-parent</artifactId>
    <version>${{revision}}</version>
  </parent>
  <artifactId>{artifact}</artifactId>
</project>
"""

METADATA = """
  <groupId>dev.spindle</groupId>
  <artifactId>{artifact}</artifactId>
  <version>{version}</version>{packaging}
  <name>Spindle {artifact}</name>
  <description>A module of Spindle.</description>
  <url>https://github.com/spindle-http/spindle</url>
  <licenses>
    <license>
      <name>Apache-2.0</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>
    </license>
  </licenses>
  <developers>
    <developer>
      <id>spindle</id>
    </developer>
  </developers>
  <scm>
    <connection>scm:git:https://github.com/spindle-http/spindle.git</connection>
    <url>https://github.com/spindle-http/spindle</url>
  </scm>"""

SLF4J = """
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>2.0.17</version>
      <scope>compile</scope>
    </dependency>"""

MANAGED_DEMO = """
      <dependency>
        <groupId>dev.spindle</groupId>
        <artifactId>spindle-demo</artifactId>
        <version>{version}</version>
      </dependency>"""


def pom(artifact: str, version: str, body: str, packaging: str = "") -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
            f"  <modelVersion>4.0.0</modelVersion>"
            + METADATA.format(artifact=artifact, version=version,
                              packaging=f"\n  <packaging>{packaging}</packaging>" if packaging else "")
            + body + "\n</project>\n")


def model(version: str = VERSION) -> dict:
    """The valid release as data: artifactId -> its POM's text and its jars' entries."""
    return {
        "spindle-demo": {
            "pom": pom("spindle-demo", version, f"\n  <dependencies>{SLF4J}\n  </dependencies>"),
            "jars": {
                "": {
                    "META-INF/MANIFEST.MF": "Manifest-Version: 1.0\n",
                    "META-INF/LICENSE": "Apache License 2.0\n",
                    "META-INF/NOTICE": "Spindle\n",
                    "module-info.class": "\xca\xfe",
                    "dev/spindle/demo/Demo.class": "\xca\xfe",
                    "dev/spindle/demo/Demo$Inner.class": "\xca\xfe",
                    "dev/spindle/demo/Demo$Inner$1.class": "\xca\xfe",
                },
                "-sources": {
                    "module-info.java": "module dev.spindle.demo {}\n",
                    "dev/spindle/demo/Demo.java": "package dev.spindle.demo; class Demo { class Inner {} }\n",
                },
                "-javadoc": {
                    "index.html": "<html></html>\n",
                    "dev.spindle.demo/dev/spindle/demo/Demo.html": "<html></html>\n",
                },
            },
        },
        "spindle-bom": {
            "pom": pom("spindle-bom", version,
                       "\n  <dependencyManagement>\n    <dependencies>" + MANAGED_DEMO.format(version=version)
                       + "\n    </dependencies>\n  </dependencyManagement>", packaging="pom"),
            "jars": {},
        },
    }


def zip_bytes(entries: dict[str, str]) -> bytes:
    """A jar whose bytes depend on its entries alone (fixed order and times), as reproducible builds make."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, entries[name].encode("latin-1"))
    return out.getvalue()


def write(release: dict, staged: Path, version: str, signed: bool) -> None:
    """Stages release under staged as mvn deploy does: each file with .md5 and .sha1 (and .asc)."""
    for artifact, parts in release.items():
        folder = staged / "dev" / "spindle" / artifact / version
        folder.mkdir(parents=True)
        files = {f"{artifact}-{version}.pom": parts["pom"].encode()}
        for classifier, entries in parts["jars"].items():
            files[f"{artifact}-{version}{classifier}.jar"] = zip_bytes(entries)
        for name, data in files.items():
            (folder / name).write_bytes(data)
            (folder / f"{name}.md5").write_text(hashlib.md5(data).hexdigest())
            # a checksum may be followed by the file's name
            (folder / f"{name}.sha1").write_text(f"{hashlib.sha1(data).hexdigest()}  {name}\n")
            if signed:
                (folder / f"{name}.asc").write_text("-----BEGIN PGP SIGNATURE-----\n\nxyz\n"
                                                    "-----END PGP SIGNATURE-----\n")


def edit_pom(artifact: str, old: str, new: str) -> Callable[[dict], None]:
    def edit(release: dict) -> None:
        text = release[artifact]["pom"]
        assert old in text, f"{old!r} is not in the POM of {artifact}"
        release[artifact]["pom"] = text.replace(old, new, 1)
    return edit


def cut_pom(artifact: str, start: str, end: str) -> Callable[[dict], None]:
    def cut(release: dict) -> None:
        text = release[artifact]["pom"]
        begin = text.index(start)
        release[artifact]["pom"] = text[:begin] + text[text.index(end, begin) + len(end):]
    return cut


def flip_byte(path: str) -> Callable[[Path], None]:
    def flip(staged: Path) -> None:
        file = staged / path
        data = bytearray(file.read_bytes())
        data[len(data) // 2] ^= 1
        file.write_bytes(bytes(data))
    return flip


def delete(path: str) -> Callable[[Path], None]:
    return lambda staged: (staged / path).unlink()


def put(path: str, text: str) -> Callable[[Path], None]:
    def write_file(staged: Path) -> None:
        (staged / path).parent.mkdir(parents=True, exist_ok=True)
        (staged / path).write_text(text)
    return write_file


def add_jar(artifact: str, classifier: str, entries: dict[str, str]) -> Callable[[dict], None]:
    return lambda release: release[artifact]["jars"].__setitem__(classifier, entries)


def drop_jar(artifact: str, classifier: str) -> Callable[[dict], None]:
    return lambda release: release[artifact]["jars"].pop(classifier)


def jar_entry(classifier: str, name: str, text: str | None) -> Callable[[dict], None]:
    def change(release: dict) -> None:
        entries = release["spindle-demo"]["jars"][classifier]
        if text is None:
            del entries[name]
        else:
            entries[name] = text
    return change


def stage_parent(release: dict) -> None:
    release["spindle-parent"] = {"pom": pom("spindle-parent", VERSION, "", packaging="pom"), "jars": {}}


# (what is wrong, the problem it must produce, edit of the release model, edit of the staged files,
#  edit of the second build for --compare, options)
CASES = [
    ("missing sources jar", f"{JAR}-sources.jar: missing", drop_jar("spindle-demo", "-sources"), None, None, {}),
    ("class without its source", "no dev/spindle/demo/Orphan.java, the source of dev/spindle/demo/Orphan.class",
     jar_entry("", "dev/spindle/demo/Orphan.class", "\xca\xfe"), None, None, {}),
    ("nested class without its source", "no dev/spindle/demo/Gone.java, the source of dev/spindle/demo/Gone$1.class",
     jar_entry("", "dev/spindle/demo/Gone$1.class", "\xca\xfe"), None, None, {}),
    ("module-info without its source", "no module-info.java",
     jar_entry("-sources", "module-info.java", None), None, None, {}),
    ("snapshot version", "version 0.2.0-SNAPSHOT is a -SNAPSHOT", None, None, None, {"version": "0.2.0-SNAPSHOT"}),
    ("snapshot dependency", "dependency org.slf4j:slf4j-api is at a -SNAPSHOT version 2.1.0-SNAPSHOT",
     edit_pom("spindle-demo", "<version>2.0.17</version>", "<version>2.1.0-SNAPSHOT</version>"), None, None, {}),
    ("test-scoped dependency", "dependency org.junit:junit has scope test",
     edit_pom("spindle-demo", "</dependencies>", "<dependency><groupId>org.junit</groupId>"
              "<artifactId>junit</artifactId><version>5.0</version><scope>test</scope></dependency></dependencies>"),
     None, None, {}),
    ("dependency without version", "dependency org.slf4j:slf4j-api has no version",
     edit_pom("spindle-demo", "<version>2.0.17</version>", ""), None, None, {}),
    ("spindle dependency at another version", "managed dependency dev.spindle:spindle-demo:0.0.9 is not one of",
     edit_pom("spindle-bom", f"<version>{VERSION}</version>\n      </dependency>",
              "<version>0.0.9</version>\n      </dependency>"), None, None, {}),
    ("wrong md5", f"{JAR}.jar.md5: md5 00000000000000000000000000000000 does not match", None,
     put(f"{JAR}.jar.md5", "0" * 32), None, {}),
    ("missing sha1", f"{JAR}-javadoc.jar.sha1: missing", None, delete(f"{JAR}-javadoc.jar.sha1"), None, {}),
    ("missing license", "no <licenses>/<license>",
     cut_pom("spindle-demo", "<licenses>", "</licenses>"), None, None, {}),
    ("license without url", "license 1 has no <url>",
     edit_pom("spindle-demo", "<url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>", ""), None, None, {}),
    ("missing scm connection", "no <scm>/<connection>",
     edit_pom("spindle-bom", "<connection>scm:git:https://github.com/spindle-http/spindle.git</connection>", ""),
     None, None, {}),
    ("empty description", f"{BOM}.pom: <description> missing or empty",
     edit_pom("spindle-bom", "A module of Spindle.", ""), None, None, {}),
    ("parent present", "has a <parent>",
     edit_pom("spindle-demo", "<modelVersion>4.0.0</modelVersion>", "<modelVersion>4.0.0</modelVersion><parent>"
              "<groupId>dev.spindle</groupId><artifactId>spindle-parent</artifactId><version>0.1.0</version></parent>"),
     None, None, {}),
    ("unresolved property", "unresolved '${x}' in project/description",
     edit_pom("spindle-demo", "A module of Spindle.", "${x}"), None, None, {}),
    ("artifactId of another module", "<artifactId> is 'spindle-other', not 'spindle-demo'",
     edit_pom("spindle-demo", "<artifactId>spindle-demo</artifactId>", "<artifactId>spindle-other</artifactId>"),
     None, None, {}),
    ("tests jar", f"{JAR}-tests.jar: not a release artifact",
     add_jar("spindle-demo", "-tests", {"dev/spindle/demo/DemoTest.class": "\xca\xfe"}), None, None, {}),
    ("unpublished artifact staged", "dev/spindle/spindle-parent: spindle-parent is not a published module",
     stage_parent, None, None, {}),
    ("published artifact not staged", "dev/spindle/spindle-demo: published module not staged",
     lambda release: release.pop("spindle-demo"), None, None, {}),
    ("second version directory", "dev/spindle/spindle-demo: 2 version directories (0.0.9, 0.1.0)", None,
     put("dev/spindle/spindle-demo/0.0.9/spindle-demo-0.0.9.pom", "<project/>"), None, {}),
    ("maven-metadata.xml left", "dev/spindle/spindle-demo/maven-metadata.xml: maven-metadata.xml is Central's to write",
     None, put("dev/spindle/spindle-demo/maven-metadata.xml", "<metadata/>"), None, {}),
    ("missing LICENSE", f"{JAR}.jar: no META-INF/LICENSE", jar_entry("", "META-INF/LICENSE", None), None, None, {}),
    ("missing NOTICE", f"{JAR}.jar: no META-INF/NOTICE", jar_entry("", "META-INF/NOTICE", None), None, None, {}),
    ("javadoc without index.html", "no index.html at the root", jar_entry("-javadoc", "index.html", None),
     None, None, {}),
    ("missing asc when signed", f"{JAR}.pom.asc: missing", None, delete(f"{JAR}.pom.asc"), None, {"signed": True}),
    ("asc that is no signature", f"{BOM}.pom.asc: not an ASCII-armoured PGP signature", None,
     put(f"{BOM}.pom.asc", "not a signature"), None, {"signed": True}),
    ("BOM misses an artifact", "the BOM's <dependencyManagement> does not list spindle-demo",
     edit_pom("spindle-bom", MANAGED_DEMO.format(version=VERSION), ""), None, None, {}),
    ("builds differ in one byte", f"{JAR}-sources.jar: differs between the two builds", None, None,
     flip_byte(f"{JAR}-sources.jar"), {"compare": True}),
    ("second build lacks a file", f"{JAR}.jar.md5: only in", None, None, delete(f"{JAR}.jar.md5"),
     {"compare": True}),
]


class ReleaseCheckTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.root = self.tmp / "root"
        for module, artifact in (("demo", "spindle-demo"), ("bom", "spindle-bom")):
            (self.root / module).mkdir(parents=True)
            (self.root / module / "pom.xml").write_text(MODULE_POM.format(artifact=artifact))

    def stage(self, name: str, edit: Callable[[dict], None] | None = None, version: str = VERSION,
              signed: bool = False) -> Path:
        release = model(version)
        if edit:
            edit(release)
        staged = self.tmp / name
        write(release, staged, version, signed)
        return staged

    def run_case(self, edit=None, after=None, after_other=None, version: str = VERSION, signed: bool = False,
                 compare: bool = False) -> tuple[list[str], list[str]]:
        staged = self.stage("staged", edit, version, signed)
        if after:
            after(staged)
        other = None
        if compare:
            other = self.tmp / "other"
            shutil.copytree(staged, other)
            if after_other:
                after_other(other)
        return release_check.check(staged, self.root, MODULES, other, signed)

    def test_the_valid_release_passes(self) -> None:
        for signed in (False, True):
            with self.subTest(signed=signed):
                problems, info = self.run_case(signed=signed, compare=True)
                self.assertEqual(problems, [])
                self.assertEqual(info[0], f"2 artifacts of dev.spindle at {VERSION} pass (spindle-demo, spindle-bom)")
                self.assertEqual(info[1], "the two builds are byte-identical (15 files)")
                shutil.rmtree(self.tmp / "staged")
                shutil.rmtree(self.tmp / "other")

    def test_two_builds_of_the_model_are_byte_identical(self) -> None:
        first, second = self.stage("first"), self.stage("second")
        problems, info = release_check.check(first, self.root, MODULES, second, False)
        self.assertEqual(problems, [])
        self.assertIn("the two builds are byte-identical (15 files)", info)

    def test_a_signed_build_compares_with_an_unsigned_one(self) -> None:
        # signatures carry their signing time: the comparison is of everything else
        unsigned, signed = self.stage("unsigned"), self.stage("signed", signed=True)
        self.assertEqual(release_check.check(unsigned, self.root, MODULES, signed, False)[0], [])
        self.assertEqual(release_check.check(signed, self.root, MODULES, unsigned, True)[0], [])

    def test_each_mutation_is_a_problem(self) -> None:
        for what, expected, edit, after, after_other, options in CASES:
            with self.subTest(what):
                problems, info = self.run_case(edit, after, after_other, **options)
                self.assertTrue(any(expected in p for p in problems),
                                f"{what}: no problem contains {expected!r}:\n" + "\n".join(problems))
                self.assertFalse(any(" pass (" in line for line in info), info)
            for name in ("staged", "other"):
                shutil.rmtree(self.tmp / name, ignore_errors=True)

    def test_the_artifact_id_is_the_modules_not_its_parents(self) -> None:
        self.assertEqual(release_check.artifact_ids(self.root, MODULES), ["spindle-demo", "spindle-bom"])
        with self.assertRaises(release_check.UsageError):
            release_check.artifact_ids(self.root, ["nowhere"])

    def test_main_exits_0_1_and_2(self) -> None:
        staged = self.stage("staged")
        argv = ["x", str(staged), "--root", str(self.root), "--modules", "demo,bom"]
        with redirect_stdout(io.StringIO()) as out, redirect_stderr(io.StringIO()) as err:
            self.assertEqual(release_check.main(argv), 0)
        self.assertEqual(err.getvalue(), "")
        self.assertEqual(out.getvalue(),
                         f"release check: 2 artifacts of dev.spindle at {VERSION} pass (spindle-demo, spindle-bom)\n")

        (staged / f"{JAR}.jar.sha1").unlink()
        with redirect_stdout(io.StringIO()) as out, redirect_stderr(io.StringIO()) as err:
            self.assertEqual(release_check.main(argv), 1)
        self.assertIn(f"release check: {JAR}.jar.sha1: missing\n", err.getvalue())
        self.assertIn("1 problem(s)", err.getvalue())

        for bad in (["x", str(self.tmp / "absent"), "--root", str(self.root), "--modules", "demo,bom"],
                    ["x", str(staged), "--root", str(self.root), "--modules", "demo,nowhere"],
                    ["x", str(staged), "--modules", "demo,bom"]):
            with self.subTest(bad), redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                try:
                    code = release_check.main(bad)
                except SystemExit as e:  # argparse's own usage errors
                    code = e.code
                self.assertEqual(code, 2)


if __name__ == "__main__":
    unittest.main()
