"""Reference CUDA RoPE on one tensor: the perf bar of lab11's `rope` (hidden from students).
The launcher, its tuning and the kernels' byte ledger: rotary_cuda.py and rope.cu.
"""

from grader.lab.reference import shared

rope_cuda = shared(__file__, "rotary_cuda").rope_one_cuda
