"""Reference Triton RoPE on one tensor: the perf bar of lab11's `rope` (hidden from students).
The kernel, its byte ledger and its tuning: rotary_triton.py.
"""

from grader.lab.reference import shared

rope_triton = shared(__file__, "rotary_triton").rope_one_triton
