"""Triton-vs-CUDA Lab grader: labs registry, checks, benchmarks and the `tclab` CLI."""

__version__ = "0.1.0"
