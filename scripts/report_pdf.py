#!/usr/bin/env python3
"""Renders the reproduction report (Markdown) as a PDF with its figures embedded.

    report_pdf.py REPORT.md [OUT.pdf]      (default OUT: REPORT with .pdf for .md)

Markdown -> HTML with Python-Markdown (Debian: python3-markdown), HTML -> PDF with
WeasyPrint (Debian: weasyprint); `make deps` installs both (about 4.5 MB with their
dependencies next to matplotlib; pandoc alone would be 170 MB). Image links are resolved
against the report's own directory, which is how paper/make_report.py writes them
(relative to the report), and the images are embedded in the PDF. Links to other local
files (the figures' vector PDFs) become plain text, since a reader of the PDF does not
have them beside it. An image that cannot be loaded is named in a warning on stderr.

When either module is missing, prints one line saying that the PDF was skipped and why
and exits 0, so that `make paper` succeeds without them. Other failures exit 1.
"""

import html
import importlib
import logging
import os
import re
import sys
import time
from urllib.parse import urlparse

CSS = """
@page {
  size: A4;
  margin: 16mm 14mm 16mm 14mm;
  @bottom-right { content: counter(page) " / " counter(pages); font-size: 8pt; color: #666; }
  @bottom-left { content: string(doctitle); font-size: 7pt; color: #666; }
  @top-right { content: string(section); font-size: 7pt; color: #666; }
}
html { font-family: "DejaVu Sans", sans-serif; font-size: 9pt; line-height: 1.35; }
h1 { font-size: 16pt; string-set: doctitle content(); margin-top: 0; }
h2 { font-size: 13pt; string-set: section content(); margin-top: 1.4em; border-bottom: 0.5pt solid #999; break-after: avoid; }
h3 { font-size: 11pt; margin-top: 1.2em; break-after: avoid; }
h4, h5, h6 { font-size: 9.5pt; break-after: avoid; }
p, li { orphans: 2; widows: 2; }
code { font-family: "DejaVu Sans Mono", monospace; font-size: 0.92em; }
pre { background: #f5f5f5; padding: 4pt 6pt; white-space: pre-wrap; font-size: 8pt; }
img { max-width: 100%; height: auto; display: block; margin: 4pt auto; break-inside: avoid; }
table { border-collapse: collapse; font-size: 7.2pt; line-height: 1.25; margin: 6pt 0; max-width: 100%; }
th, td { border: 0.4pt solid #bbb; padding: 1.5pt 3pt; vertical-align: top; overflow-wrap: break-word; }
th { background: #eee; }
table.wide { font-size: 6.4pt; }
table.wider { font-size: 5.6pt; }
table.wide th, table.wide td, table.wider th, table.wider td { padding: 1pt 2pt; }
tr { break-inside: avoid; }
blockquote { margin-left: 0; padding-left: 8pt; border-left: 2pt solid #ccc; color: #333; }
a { color: #1a4f8a; text-decoration: none; }
"""


def skip(reason):
    print("paper: PDF skipped: %s" % reason)
    return 0


BREAK_AFTER = re.compile(r"([,_/=;])")  # not ":", which is in Python-Markdown's placeholders


def _breakable(text, longest):
    """Tokens longer than `longest` (comma-separated lists, paths, registry names) with a
    zero-width space after each ',', '_', '/', '=' and ';', so that table columns can
    wrap them: WeasyPrint sizes columns by their longest unbreakable word, and
    overflow-wrap: anywhere on every cell makes its table layout about 8 times slower."""
    if not text:
        return text
    return re.sub(r"\S{%d,}" % (longest + 1), lambda m: BREAK_AFTER.sub("\\1\u200b", m.group(0)), text)


def _pdf_extension():
    """A Python-Markdown extension for the PDF: links to local files (not #anchors, not
    URLs) become plain text, since in the PDF they would point at absolute paths of this
    machine; long tokens in table cells get break opportunities (_breakable); tables of 8
    or more columns get a smaller font (classes wide, wider)."""
    import markdown
    from markdown.treeprocessors import Treeprocessor

    class ForPdf(Treeprocessor):
        def run(self, root):
            for a in root.iter("a"):
                href = a.get("href", "")
                if href and not href.startswith("#") and not urlparse(href).scheme:
                    a.tag = "span"
                    a.attrib.pop("href", None)
                    a.attrib.pop("title", None)
            for table in root.iter("table"):
                row = next(table.iter("tr"), None)
                columns = 0 if row is None else len([c for c in row if c.tag in ("td", "th")])
                if columns >= 8:
                    table.set("class", "wide" if columns < 11 else "wider")
                longest = 11 if columns >= 8 else 23
                for cell in [e for e in table.iter() if e.tag in ("td", "th")]:
                    for e in cell.iter():
                        e.text = _breakable(e.text, longest)
                        if e is not cell:
                            e.tail = _breakable(e.tail, longest)

    class ForPdfExtension(markdown.Extension):
        def extendMarkdown(self, md):
            md.treeprocessors.register(ForPdf(md), "onepass_for_pdf", 1)

    return ForPdfExtension()


def to_html(text):
    import markdown

    body = markdown.markdown(text, extensions=["tables", "fenced_code", "sane_lists", "toc",
                                               _pdf_extension()])
    title = "Reproduction report"
    for line in text.splitlines():
        if line.startswith("# "):
            title = line[2:].strip()
            break
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>%s</title><style>%s</style></head><body>\n%s\n</body></html>\n"
            % (html.escape(title), CSS, body))


class _ImageFailures(logging.Handler):
    """Collects WeasyPrint's messages about images it could not load."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        msg = record.getMessage()
        if "image" in msg.lower():
            self.messages.append(msg)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or len(argv) > 2 or argv[0].startswith("-"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    src = argv[0]
    out = argv[1] if len(argv) > 1 else os.path.splitext(src)[0] + ".pdf"
    try:
        importlib.import_module("markdown")
    except ImportError:
        return skip("Python-Markdown not found for %s (Debian package python3-markdown; make deps installs it)"
                    % sys.executable)
    try:
        import weasyprint
    except ImportError:
        return skip("WeasyPrint not found for %s (Debian package weasyprint; make deps installs it)"
                    % sys.executable)
    except OSError as e:  # its C libraries (pango) missing
        return skip("WeasyPrint cannot load its libraries (%s)" % e)

    try:
        with open(src, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print("paper: PDF: cannot read the report: %s" % e, file=sys.stderr)
        return 1
    page = to_html(text)
    base = os.path.dirname(os.path.abspath(src)) + os.sep

    log = logging.getLogger("weasyprint")
    failures = _ImageFailures()
    log.addHandler(failures)
    log.setLevel(logging.WARNING)
    log.propagate = False  # CSS notes and the like stay quiet; image failures are reported below
    start = time.time()
    tmp = out + ".partial"
    try:
        weasyprint.HTML(string=page, base_url=base).write_pdf(tmp)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    for msg in failures.messages:
        print("paper: PDF: warning: %s" % msg, file=sys.stderr)
    print("paper: wrote %s (%.0f kB, %.1f s)" % (out, os.path.getsize(out) / 1024.0, time.time() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
