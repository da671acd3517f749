"""Reference Triton deinterleave: the perf bar for lab13 (hidden from students).

Byte ledger: 2n elements read, 2n written: 4 * n * itemsize (lab.toml's `bytes`). The
kernels and their tuning constants (not yet tuned on a GPU) are shared by the three ops:
permute_triton.py.
"""

from grader.lab.reference import shared

deinterleave_triton = shared(__file__, "permute_triton").deinterleave_triton
