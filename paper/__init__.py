"""The reproduction report: `python -m paper.make_report` (from the repository root)
writes paper/reproduction.md from the results and figures; claims, provenance and
variability are its parts."""
