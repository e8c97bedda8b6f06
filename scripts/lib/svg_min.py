# SPDX-License-Identifier: Apache-2.0
"""A matplotlib SVG made small without changing what it draws; standard library only.

charts.py writes every chart through minify(); the charts committed before it were rewritten with
`python3 scripts/lib/svg_min.py FILE...` (in place). What goes: the XML declaration, DOCTYPE and
<metadata>, whitespace between elements, ids nothing refers to, attribute-less <g> wrappers and
matplotlib's no-op rotate(-0 x y) on text. What is rounded: coordinates of the geometry attributes
(d, x, y, width, height, ...) to 0.1 pt, 0.01 pt inside <defs> (markers are drawn small). Styles,
colours, opacities and text are kept as they are.

  python3 scripts/lib/svg_min.py FILE...   minify each SVG in place (idempotent)
"""
from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

GEOMETRY = {"d", "x", "y", "x1", "x2", "y1", "y2", "width", "height", "points", "cx", "cy", "r", "rx", "ry"}
_NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NO_OP_ROTATE = re.compile(r"rotate\(-?0(?:\.0*)? [^)]*\)")
_REF = re.compile(r'url\(#([^)]+)\)|href="#([^"]+)"')


def _round(match: re.Match, places: int) -> str:
    text = f"{float(match.group(0)):.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _numbers(value: str, places: int) -> str:
    return _NUMBER.sub(lambda m: _round(m, places), value)


def minify(text: str) -> str:
    """The same picture in fewer bytes (see the module doc); minify(minify(x)) == minify(x)."""
    root = ET.fromstring(text)
    refs = {a or b for a, b in _REF.findall(text)}
    tag = lambda name: f"{{{SVG_NS}}}{name}"  # noqa: E731

    def walk(el: ET.Element, in_defs: bool) -> None:
        for child in list(el):
            if child.tag == tag("metadata"):
                el.remove(child)
            else:
                walk(child, in_defs or el.tag == tag("defs"))
        places = 2 if in_defs or el.tag == tag("defs") else 1
        if el.get("id") is not None and el.get("id") not in refs:
            del el.attrib["id"]
        for key in list(el.attrib):
            value = el.attrib[key]
            if key == "transform" and _NO_OP_ROTATE.fullmatch(value.strip()):
                del el.attrib[key]
                continue
            if key in GEOMETRY:
                value = _numbers(value, places)
            if key == "d":
                value = " ".join(value.split())
            elif key == "style":
                value = re.sub(r"\s*([:;])\s*", r"\1", value).strip()
            el.attrib[key] = value
        if el.text is not None and not el.text.strip() and el.tag != tag("text"):
            el.text = None
        if el.tail is not None and not el.tail.strip():
            el.tail = None

    def unwrap(el: ET.Element) -> None:
        children = []
        for child in list(el):
            unwrap(child)
            if child.tag == tag("g") and not child.attrib and not child.text:
                children.extend(list(child))
            else:
                children.append(child)
        for child in list(el):
            el.remove(child)
        el.extend(children)

    walk(root, False)
    unwrap(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def minify_file(path: Path) -> tuple[int, int]:
    """Rewrites path minified; (bytes before, bytes after)."""
    before = path.read_bytes()
    after = minify(before.decode("utf-8")).encode("utf-8")
    if after != before:
        path.write_bytes(after)
    return len(before), len(after)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: svg_min.py FILE...", file=sys.stderr)
        return 2
    total_before = total_after = 0
    for name in argv:
        before, after = minify_file(Path(name))
        total_before += before
        total_after += after
    print(f"{len(argv)} SVG: {total_before} -> {total_after} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
