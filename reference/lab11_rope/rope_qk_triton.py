"""Reference Triton RoPE on q and k in one launch: the perf bar of lab11's `rope_qk` (hidden
from students). The kernel, its byte ledger and its tuning: rotary_triton.py.
"""

from grader.lab.reference import shared

rope_qk_triton = shared(__file__, "rotary_triton").rope_pair_triton
