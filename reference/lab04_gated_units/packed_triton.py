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

# A program is NUM_WARPS x 32 threads, each moving BYTES_PER_THREAD of gate, of up and of
# out: a tile of BLOCK_R rows x BLOCK_C columns. BLOCK_C is the largest power of two that
# divides h, so no column of a tile is masked off (h = 5632 = 11 x 512: one 2048-column block
# per row left a quarter of its last block idle, 81% of the roof on an H200).
NUM_WARPS = 16  # swept on an H200, see docs/perf.md
BYTES_PER_THREAD = 32  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"NUM_WARPS": (2, 4, 8, 16), "BYTES_PER_THREAD": (16, 32, 64)}
MIN_BLOCK_C = 64  # below this a tile is whole padded rows: h with few factors of two


@triton.jit
def gated_packed_kernel(
    x_ptr,  # [rows, 2h] bfloat16: gate then up in each row
    out_ptr,  # [rows, h] bfloat16, contiguous
    n_rows,  # rows of x and out
    h,  # columns of out
    stride_xr,  # elements between the starts of two rows of x
    BLOCK_R: tl.constexpr,  # rows per program
    BLOCK_C: tl.constexpr,  # columns per program
    GELU: tl.constexpr,  # GeGLU (tanh GELU) instead of SwiGLU
):
    rows = tl.program_id(axis=0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)  # 64-bit below
    cols = tl.program_id(axis=1) * BLOCK_C + tl.arange(0, BLOCK_C)  # axis 1 stops at 65535
    mask = (rows < n_rows)[:, None] & (cols < h)[None, :]  # the last tiles run past the ends
    gate_ptrs = x_ptr + rows[:, None] * stride_xr + cols[None, :]
    gate = tl.load(gate_ptrs, mask=mask).to(tl.float32)
    up = tl.load(gate_ptrs + h, mask=mask).to(tl.float32)
    if GELU:
        gate_in = 1.5957691216057308 * (gate + 0.044715 * gate * gate * gate)  # 2y
    else:
        gate_in = gate
    out = gate * tl.sigmoid(gate_in) * up
    tl.store(out_ptr + rows[:, None] * h + cols[None, :], out.to(out_ptr.dtype.element_ty),
             mask=mask)


def gated_packed_triton(op: str, x: torch.Tensor, out: torch.Tensor) -> None:
    """`op` is "swiglu" or "geglu"."""
    n_rows, h = out.shape
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    elems = NUM_WARPS * 32 * BYTES_PER_THREAD // out.element_size()  # per program
    block_c = min(h & -h, elems)  # the largest power of two dividing h
    if block_c < MIN_BLOCK_C:
        block_c = min(triton.next_power_of_2(h), elems)
    grid = (triton.cdiv(n_rows, elems // block_c), triton.cdiv(h, block_c))
    assert grid[1] <= 65535, f"h = {h} needs {grid[1]} column tiles: grid axis 1 stops at 65535"
    gated_packed_kernel[grid](x, out, n_rows, h, x.stride(0), BLOCK_R=elems // block_c,
                              BLOCK_C=block_c, GELU=op == "geglu", num_warps=NUM_WARPS)
