"""Helper programs of the build and the reproduction (`python -m scripts.check_outputs`)."""
