"""Saving a matplotlib figure as PNG and PDF, and its provenance footer (shared by
plot_all.py, sort_results.py and gaussian_results.py)."""

import os
import textwrap


def save_figure(fig, out_dir, name):
    """Writes out_dir/name.png and out_dir/name.pdf (the PDF without a creation date, so
    reruns give the same bytes), closes the figure, and returns the two paths."""
    import matplotlib.pyplot as plt

    paths = []
    for ext in ("png", "pdf"):
        path = os.path.join(out_dir, "%s.%s" % (name, ext))
        fig.savefig(path, bbox_inches="tight", pad_inches=0.08,
                    metadata={"CreationDate": None} if ext == "pdf" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def footer(fig, text, fontsize=7.0, colour="#555555"):
    """Writes the provenance text under everything drawn so far (axes, tick labels,
    legends, figure legends), wrapped to the figure's width so that it never widens the
    saved canvas (savefig uses bbox_inches="tight")."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()]
    boxes += [lg.get_window_extent(renderer) for lg in fig.legends]
    boxes += [t.get_window_extent(renderer) for t in fig.texts if t.get_text()]
    bottom = min(b.y0 for b in boxes if b is not None)
    left = max(0.0, min(b.x0 for b in boxes if b is not None))
    right = max(b.x1 for b in boxes if b is not None)
    to_fig = fig.transFigure.inverted()
    x0, y = to_fig.transform((left, bottom - 0.08 * fig.dpi))  # a gap of 0.08 inch
    width_px = max(right - left, 0.5 * fig.get_figwidth() * fig.dpi)
    char_px = 0.52 * fontsize * fig.dpi / 72.0  # mean width of a character of this font
    chars = max(40, int(width_px / char_px))
    lines = []
    for part in str(text).split("\n"):
        lines += textwrap.wrap(part, chars) or [""]
    fig.text(x0, y, "\n".join(lines), fontsize=fontsize, color=colour, ha="left", va="top")
