"""Reference CUDA GeGLU (tanh GELU) on a packed [rows, 2h] tensor: the perf bar of lab04's
`geglu_packed` (hidden from students). The launcher and its tuning: packed_cuda.py.
"""

import functools

from grader.lab.reference import shared

geglu_packed_cuda = functools.partial(shared(__file__, "packed_cuda").gated_packed_cuda, "geglu")
