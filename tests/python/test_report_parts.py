"""The report's title and parts (paper/make_report.py): the title names every reproduced work, every
report family of experiments/manifest.toml belongs to a part, and the PDF shows the part in its running
footer and the section in its running header (scripts/report_pdf.py)."""

import unittest

from figures import manifest
from paper import make_report
from scripts import report_pdf


class Parts(unittest.TestCase):
    def test_title_names_every_reproduced_work(self):
        for work in ("Bandwidth-Optimal Random Shuffling", "Onesweep", "VREN", "Gaussian generator"):
            self.assertIn(work, make_report.TITLE)

    def test_every_family_has_a_part(self):
        families = [family for family, _ in manifest.manifest().sections]
        self.assertIn("shuffle", families)
        parts = [make_report.part_title(f) for f in families]
        self.assertIn("Onesweep", make_report.part_title("sort"))
        self.assertEqual(parts[families.index("shuffle")], make_report.PARTS["shuffle"])
        self.assertEqual(make_report.part_title("multi_gpu"), make_report.LIBRARY_PART)
        # a part, once left, is not entered again (the sections of a part are consecutive)
        seen, previous = set(), object()
        for p in parts:
            if p != previous:
                self.assertNotIn(p, seen)
                seen.add(p)
                previous = p

    def test_pdf_running_footer_and_header(self):
        self.assertIn("@bottom-left { content: string(doctitle)", report_pdf.CSS)
        self.assertIn("@top-right { content: string(section)", report_pdf.CSS)
        self.assertIn("h2 { font-size: 13pt; string-set: section content()", report_pdf.CSS)


if __name__ == "__main__":
    unittest.main()
