"""Benchmarks: each prints its ratios against a baseline run in the same process (`make bench-*`)."""
