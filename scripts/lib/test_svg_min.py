# SPDX-License-Identifier: Apache-2.0
"""svg_min: a matplotlib SVG in fewer bytes, the same elements, text and styles."""
import unittest
import xml.etree.ElementTree as ET

import svg_min

SAMPLE = """<?xml version="1.0" encoding="utf-8" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="792pt" height="540pt" viewBox="0 0 792 540" xmlns="http://www.w3.org/2000/svg" version="1.1">
 <metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata>
 <g id="figure_1">
  <g id="patch_1">
   <path d="M 143.26 463.52 
L 456.16 463.52 
z
" clip-path="url(#p1)" style="fill: #ffffff; opacity: 0.25"/>
  </g>
  <g>
   <defs><path id="m1" d="M 0 0 L 0 3.5123"/></defs>
   <use xlink:href="#m1" x="195.500752" y="463.52"/>
  </g>
  <text style="font: 9px 'DejaVu Sans'" x="143.26" y="477.358594" transform="rotate(-0 143.26 477.358594)">50k &#183; 1</text>
 </g>
 <defs><clipPath id="p1"><rect x="143.26" y="86.64" width="312.9" height="376.88"/></clipPath></defs>
</svg>
"""


class SvgMinTest(unittest.TestCase):
    def test_smaller_with_the_same_text_styles_and_references(self):
        out = svg_min.minify(SAMPLE)
        self.assertLess(len(out), len(SAMPLE))
        self.assertNotIn("metadata", out)
        self.assertNotIn("DOCTYPE", out)
        self.assertNotIn("figure_1", out)          # ids nothing refers to
        self.assertIn('id="m1"', out)              # referenced ids kept
        self.assertIn('id="p1"', out)
        self.assertIn('d="M 143.3 463.5 L 456.2 463.5 z"', out)
        self.assertIn('d="M 0 0 L 0 3.51"', out)   # inside <defs>: 0.01
        self.assertIn("fill:#ffffff;opacity:0.25", out)  # styles not rounded
        self.assertNotIn("rotate", out)
        root = ET.fromstring(out)
        self.assertEqual([t.text for t in root.iter(f"{{{svg_min.SVG_NS}}}text")], ["50k \u00b7 1"])

    def test_idempotent(self):
        once = svg_min.minify(SAMPLE)
        self.assertEqual(svg_min.minify(once), once)


if __name__ == "__main__":
    unittest.main()
