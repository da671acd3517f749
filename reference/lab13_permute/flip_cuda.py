"""Reference CUDA reverse: the perf bar for lab13 (hidden from students).

Byte ledger: read x once, write out once: 2 * n * itemsize (lab.toml's `bytes`). The kernels
and their tuning constants (not yet tuned on a GPU) are shared by the three ops:
permute_cuda.py.
"""

from grader.lab.reference import shared

flip_cuda = shared(__file__, "permute_cuda").flip_cuda
