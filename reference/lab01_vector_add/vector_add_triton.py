"""Reference Triton vector add: the perf bar for lab01 (hidden from students).

Byte ledger: read x and y once, write out once: 3 * n * itemsize.
"""

import torch
import triton
import triton.language as tl

# Sweep on an H200 at 2^28 fp32 (see docs/perf.md): 1024 with 8 warps matched torch.add.
# BLOCK_SIZE counts float32 elements; a program of a 16-bit dtype takes as many bytes, twice
# the elements, so that each thread still moves 16 bytes per load.
BLOCK_SIZE = 1024
NUM_WARPS = 8
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE": (1024, 2048, 4096), "NUM_WARPS": (4, 8)}
TUNED_ITEMSIZE = 4  # bytes per element of the dtype BLOCK_SIZE was tuned in (float32)


@triton.jit
def vector_add_kernel(
    x_ptr,  # first input: float32, float16 or bfloat16
    y_ptr,  # second input, same dtype
    out_ptr,  # output, same dtype
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    pid = tl.program_id(axis=0).to(tl.int64)  # pid * BLOCK_SIZE passes 2^31 at 2^31 elements
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    # Sum in float32, one rounding to the output dtype (the interpreter cannot add bfloat16).
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    assert x.dtype == y.dtype == out.dtype, f"dtypes differ: {x.dtype}, {y.dtype}, {out.dtype}"
    n = out.numel()
    block = BLOCK_SIZE * TUNED_ITEMSIZE // out.element_size()
    grid = (triton.cdiv(n, block),)
    vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=block, num_warps=NUM_WARPS)
