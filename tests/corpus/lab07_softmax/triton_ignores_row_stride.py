# impl: triton
# status: fail
# reason: [n_rows=33, n_cols=129, x rows padded by 31]
# reason: NaN too when the output starts at zero
# (rows read at n_cols apart: the padding between x's rows is NaN, and so is the softmax of a
#  row that reads it. The hint names that cause, not the NaN-filled output: the same launch on
#  a zeroed output gives the same NaNs)

# %% nbgrader={"grade_id": "softmax_triton", "solution": true}
@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_xr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))  # assumes no padding
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


def softmax_triton(x, out):
    n_rows, n_cols = x.shape
    softmax_kernel[(n_rows,)](x, out, n_cols, x.stride(0),
                              BLOCK_SIZE=triton.next_power_of_2(n_cols))
