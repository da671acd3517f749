"""Reference Triton GeGLU (tanh GELU) on a packed [rows, 2h] tensor: the perf bar of lab04's
`geglu_packed` (hidden from students). The kernel and its tuning: packed_triton.py.
"""

import functools

from grader.lab.reference import shared

geglu_packed_triton = functools.partial(shared(__file__, "packed_triton").gated_packed_triton,
                                       "geglu")
