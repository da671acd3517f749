"""Reference Triton in-place reverse: the perf bar for lab13 (hidden from students).

Byte ledger: the copy of x into out (read n, write n) plus the swap of out's two ends (read n,
write n): 4 * n * itemsize (lab.toml's `bytes`). The kernels and their tuning constants (not
yet tuned on a GPU) are shared with the other ops: permute_triton.py.
"""

from grader.lab.reference import shared

flip_inplace_triton = shared(__file__, "permute_triton").flip_inplace_triton
