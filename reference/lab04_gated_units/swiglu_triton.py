"""Reference Triton SwiGLU on two separate tensors: the perf bar of lab04's `swiglu` (hidden
from students).

Byte ledger: read gate and up once, write out once: 3 * rows * h * itemsize (lab.toml's
`bytes`); eager torch (F.silu, then *) moves 5 * rows * h. gate, up and out are contiguous:
one flat array of n = rows * h elements each.
"""

import torch
import triton
import triton.language as tl

# A program is NUM_WARPS x 32 threads, each moving BYTES_PER_THREAD of each tensor:
# BLOCK_SIZE = threads x BYTES_PER_THREAD / 2 bfloat16.
NUM_WARPS = 2  # swept on an H200, see docs/perf.md
BYTES_PER_THREAD = 16  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"NUM_WARPS": (2, 4, 8, 16), "BYTES_PER_THREAD": (16, 32, 64)}


@triton.jit
def swiglu_kernel(
    gate_ptr,  # gate, n_elements bfloat16
    up_ptr,  # up, same
    out_ptr,  # output, same
    n_elements,  # rows * h
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    pid = tl.program_id(axis=0).to(tl.int64)  # pid * BLOCK_SIZE can pass 2^31
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    gate = tl.load(gate_ptr + offs, mask=mask).to(tl.float32)
    up = tl.load(up_ptr + offs, mask=mask).to(tl.float32)
    out = gate * tl.sigmoid(gate) * up  # in float32, one rounding at the store
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu_triton(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor) -> None:
    assert all(t.is_contiguous() for t in (gate, up, out)), "a flat kernel needs contiguous tensors"
    n = out.numel()
    block = NUM_WARPS * 32 * BYTES_PER_THREAD // out.element_size()
    grid = (triton.cdiv(n, block),)
    swiglu_kernel[grid](gate, up, out, n, BLOCK_SIZE=block, num_warps=NUM_WARPS)
