# impl: triton
# exercise: swiglu_packed
# status: fail
# reason: elements differ
# reason: [n_rows=33, two_h=258, h=129, x rows padded by 31, bfloat16]
# (Rows taken as 2h apart: right for a fresh [rows, 2h] tensor, wrong for a view with padded
# rows, whose x.stride(0) is larger.)

# %% nbgrader={"grade_id": "swiglu_packed_triton", "solution": true}
@triton.jit
def swiglu_packed_kernel(x_ptr, out_ptr, h, stride_xr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < h
    gate = tl.load(x_ptr + row * stride_xr + cols, mask=mask).to(tl.float32)
    up = tl.load(x_ptr + row * stride_xr + h + cols, mask=mask).to(tl.float32)
    out = gate * tl.sigmoid(gate) * up
    tl.store(out_ptr + row * h + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


def swiglu_packed_triton(x, out):
    rows, h = out.shape
    block = max(16, min(triton.next_power_of_2(h), 2048))
    # 2 * h instead of x.stride(0)
    swiglu_packed_kernel[(rows, triton.cdiv(h, block))](x, out, h, 2 * h, BLOCK_SIZE=block)
