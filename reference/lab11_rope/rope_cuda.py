"""Reference CUDA RoPE on one tensor: the perf bar of lab11's `rope` (hidden from students).
The launcher, its tuning and the kernels' byte ledger: rotary_cuda.py and rope.cu.
"""

import torch

from grader.reference import shared

_rotary = shared(__file__, "rotary_cuda")


def rope_cuda(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, out: torch.Tensor) -> None:
    _rotary.rope_pair_cuda(x, None, cos, sin, out, None)
