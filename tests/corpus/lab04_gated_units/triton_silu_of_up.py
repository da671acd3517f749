# impl: triton
# exercise: swiglu_packed
# status: fail
# reason: elements differ
# (The halves swapped: silu(up) * gate. The first half of each row is the gate.)

# %% nbgrader={"grade_id": "swiglu_packed_triton", "solution": true}
@triton.jit
def swiglu_packed_kernel(x_ptr, out_ptr, h, stride_xr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < h
    first = tl.load(x_ptr + row * stride_xr + cols, mask=mask).to(tl.float32)
    second = tl.load(x_ptr + row * stride_xr + h + cols, mask=mask).to(tl.float32)
    out = second * tl.sigmoid(second) * first  # gates the wrong half
    tl.store(out_ptr + row * h + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu_packed_triton(x, out):
    rows, h = out.shape
    block = max(16, min(triton.next_power_of_2(h), 2048))
    swiglu_packed_kernel[(rows, triton.cdiv(h, block))](x, out, h, x.stride(0), BLOCK_SIZE=block)
