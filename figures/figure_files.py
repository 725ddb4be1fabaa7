"""Saving a matplotlib figure as PNG and PDF (shared by plot_all.py, sort_results.py
and gaussian_results.py)."""

import os


def save_figure(fig, out_dir, name):
    """Writes out_dir/name.png and out_dir/name.pdf (the PDF without a creation date, so
    reruns give the same bytes), closes the figure, and returns the two paths."""
    import matplotlib.pyplot as plt

    paths = []
    for ext in ("png", "pdf"):
        path = os.path.join(out_dir, "%s.%s" % (name, ext))
        fig.savefig(path, bbox_inches="tight", metadata={"CreationDate": None} if ext == "pdf" else None)
        paths.append(path)
    plt.close(fig)
    return paths
