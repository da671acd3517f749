# impl: triton
# exercise: geglu_packed
# status: pass
# (honest work: GELU's tanh from Triton's libdevice, as the GELU formula is written, instead of
#  the handout's sigmoid(2y). Triton's interpreter has no libdevice; the grader gives it numpy
#  versions, so this runs on a laptop as it does on a GPU.)

# %% nbgrader={"grade_id": "geglu_packed_triton", "solution": true}
from triton.language.extra import libdevice


@triton.jit
def geglu_packed_kernel(
    x_ptr,  # [rows, 2h] bfloat16: gate = x[:, :h], up = x[:, h:2h]
    out_ptr,  # [rows, h] bfloat16, contiguous
    h,  # columns of out
    stride_xr,  # elements between the starts of two rows of x
    BLOCK_SIZE: tl.constexpr,  # columns per program
):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < h
    gate_row = x_ptr + row * stride_xr
    gate = tl.load(gate_row + cols, mask=mask).to(tl.float32)
    up = tl.load(gate_row + h + cols, mask=mask).to(tl.float32)
    y = 0.7978845608028654 * (gate + 0.044715 * gate * gate * gate)  # sqrt(2/pi) * (...)
    out = 0.5 * gate * (1.0 + libdevice.tanh(y)) * up
    tl.store(out_ptr + row * h + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


def geglu_packed_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = gelu_tanh(x[:, :h]) * x[:, h:] for x [rows, 2h], out [rows, h]."""
    rows, h = out.shape
    assert x.shape == (rows, 2 * h), f"x is {tuple(x.shape)}, expected ({rows}, {2 * h})"
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    BLOCK_SIZE = max(16, min(triton.next_power_of_2(h), 2048))
    grid = (rows, triton.cdiv(h, BLOCK_SIZE))
    geglu_packed_kernel[grid](x, out, h, x.stride(0), BLOCK_SIZE=BLOCK_SIZE,
                              num_warps=8 if BLOCK_SIZE >= 2048 else 4)


