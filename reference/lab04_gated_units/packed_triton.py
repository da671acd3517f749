"""Reference Triton gated units on a packed [rows, 2h] tensor: the kernel and launcher both
packed exercises' references share (hidden from students).

Byte ledger: read both halves of x once, write out once: 3 * rows * h * itemsize (lab.toml's
`bytes`). gate = x[:, :h], up = x[:, h:2h], rows x.stride(0) apart; out [rows, h] contiguous.
SwiGLU: silu(gate) * up. GeGLU: gelu_tanh(gate) * up, where gelu_tanh(g) = 0.5 g (1 + tanh(y))
= g * sigmoid(2y), y = sqrt(2/pi) (g + 0.044715 g^3): one exponential, as silu.
"""

import torch
import triton
import triton.language as tl

MAX_BLOCK = 2048  # swept on an H200, see docs/perf.md
NUM_WARPS = 8  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"MAX_BLOCK": (1024, 2048, 4096), "NUM_WARPS": (4, 8, 16)}


@triton.jit
def gated_packed_kernel(
    x_ptr,  # [rows, 2h] bfloat16: gate then up in each row
    out_ptr,  # [rows, h] bfloat16, contiguous
    h,  # columns of out
    stride_xr,  # elements between the starts of two rows of x
    BLOCK_SIZE: tl.constexpr,  # columns per program
    GELU: tl.constexpr,  # GeGLU (tanh GELU) instead of SwiGLU
):
    row = tl.program_id(axis=0).to(tl.int64)  # rows on axis 0: axes 1 and 2 stop at 65535
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < h  # the row's last block runs past its end
    gate_row = x_ptr + row * stride_xr
    gate = tl.load(gate_row + cols, mask=mask).to(tl.float32)
    up = tl.load(gate_row + h + cols, mask=mask).to(tl.float32)
    if GELU:
        gate_in = 1.5957691216057308 * (gate + 0.044715 * gate * gate * gate)  # 2y
    else:
        gate_in = gate
    out = gate * tl.sigmoid(gate_in) * up
    tl.store(out_ptr + row * h + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


def gated_packed_triton(op: str, x: torch.Tensor, out: torch.Tensor) -> None:
    """`op` is "swiglu" or "geglu"."""
    rows, h = out.shape
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    block = max(16, min(triton.next_power_of_2(h), MAX_BLOCK))
    grid = (rows, triton.cdiv(h, block))
    gated_packed_kernel[grid](x, out, h, x.stride(0), BLOCK_SIZE=block, GELU=op == "geglu",
                              num_warps=NUM_WARPS if block >= MAX_BLOCK else 4)
