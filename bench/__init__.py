"""Benchmarks: each script prints its figures beside a baseline measured in the same run.

Run from the repo root: `uv run python -m bench.<name> [--quick]`.
"""
