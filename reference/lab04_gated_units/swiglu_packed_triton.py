"""Reference Triton SwiGLU on a packed [rows, 2h] tensor: the perf bar of lab04's
`swiglu_packed` (hidden from students). The kernel and its tuning: packed_triton.py.
"""

import functools

from grader.lab.reference import shared

swiglu_packed_triton = functools.partial(shared(__file__, "packed_triton").gated_packed_triton,
                                       "swiglu")
