"""Reference CUDA SwiGLU on a packed [rows, 2h] tensor: the perf bar of lab04's
`swiglu_packed` (hidden from students). The launcher and its tuning: packed_cuda.py.
"""

import functools

from grader.lab.reference import shared

swiglu_packed_cuda = functools.partial(shared(__file__, "packed_cuda").gated_packed_cuda, "swiglu")
