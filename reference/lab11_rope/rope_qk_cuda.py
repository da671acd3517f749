"""Reference CUDA RoPE on q and k in one launch: the perf bar of lab11's `rope_qk` (hidden
from students). The launcher, its tuning and the kernels' byte ledger: rotary_cuda.py and
rope.cu.
"""

from grader.lab.reference import shared

rope_qk_cuda = shared(__file__, "rotary_cuda").rope_pair_cuda
