"""Benchmarks: `python -m benchmarks.engine` measures the rules engines (decisions/s, game wall time)."""
