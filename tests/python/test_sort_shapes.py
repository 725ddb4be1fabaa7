"""figures/sort_results.SHAPES, the Python side's one list of sort shapes, names the shapes of
ONEPASS_SORT_SHAPES (harness/include/onepass/harness/registry.hpp, the C++ one list) in the
same order, each with a figure label; SHAPE_ORDER and SHAPE_DISPLAY derive from it."""
import os
import re
import unittest

from figures import sort_results as so

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGISTRY = os.path.join(ROOT, "harness", "include", "onepass", "harness", "registry.hpp")


def registry_shapes(text):
    """The shape names of the ONEPASS_SORT_SHAPES X-macro in registry.hpp's text, in order."""
    start = text.index("#define ONEPASS_SORT_SHAPES(X)")
    lines = []
    for line in text[start:].splitlines()[1:]:
        lines.append(line)
        if not line.rstrip().endswith("\\"):
            break
    return [m.group(1) for line in lines for m in [re.match(r"\s*X\(\s*(\w+)\s*,", line)] if m]


class SortShapesTest(unittest.TestCase):
    def test_python_list_matches_the_registry(self):
        with open(REGISTRY, encoding="utf-8") as f:
            cpp = registry_shapes(f.read())
        self.assertIn("keys_i64", cpp)
        self.assertEqual([name for name, _ in so.SHAPES], cpp)

    def test_derived_tables(self):
        self.assertEqual(so.SHAPE_ORDER, [name for name, _ in so.SHAPES])
        self.assertEqual(so.SHAPE_DISPLAY["keys_i64"], "i64 keys")
        self.assertEqual(len(set(so.SHAPE_DISPLAY.values())), len(so.SHAPES), "labels are distinct")
        # keys_i64 sorts after the recorded shapes; an unknown shape after every known one.
        self.assertEqual(so.shape_order({"keys_i64", "zz_new", "keys_u32"}), ["keys_u32", "keys_i64", "zz_new"])

    def test_parser_reads_a_list(self):
        text = ("#define ONEPASS_SORT_SHAPES(X) \\\n  X(a_u8, std::uint8_t, void, true) /* c */ \\\n"
                "  X(b_u16,  std::uint16_t, void, false)\n#define OTHER(X) X(c, int, void, true)\n")
        self.assertEqual(registry_shapes(text), ["a_u8", "b_u16"])


if __name__ == "__main__":
    unittest.main()
