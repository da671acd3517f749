"""Reference Triton vector add: the perf bar for lab01 (hidden from students).

Byte ledger: read x and y once, write out once: 3 * n * itemsize.
"""

import torch
import triton
import triton.language as tl

# Sweep on an H200 at 2^28 fp32 (see docs/perf.md): 1024 with 8 warps matched torch.add.
BLOCK_SIZE = 1024
NUM_WARPS = 8


@triton.jit
def vector_add_kernel(
    x_ptr,  # first input
    y_ptr,  # second input
    out_ptr,  # output
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    pid = tl.program_id(axis=0).to(tl.int64)  # pid * BLOCK_SIZE passes 2^31 at 2^31 elements
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n = out.numel()
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS)
