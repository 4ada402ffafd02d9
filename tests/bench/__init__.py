"""Benchmarks (issue 7): `python -m tests.bench` runs them all against baselines measured in the same run."""
