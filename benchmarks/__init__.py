"""Benchmark scripts: each prints ratios measured in one run (never timed tests)."""
