"""The figure and results modules of the reproduction (shuffle, sort and Gaussian results,
the palette, figure files, run-to-run stability). Run the figures with
`python -m figures.plot_all` from the repository root; `paper/` and `scripts/` import
these modules as `figures.<module>`."""
