"""Benchmarks: each prints a table and reports its figures next to a floor measured in the same run."""
