# impl: triton
# exercise: rmsnorm
# status: fail
# reason: [n_rows=3, n_cols=7
# reason: elements differ
# (The mean square divided by BLOCK_SIZE, the width of the block, instead of n_cols: the
# masked lanes add nothing to the sum but count in the division. Right when n_cols is a power
# of two; at 7 columns (a block of 8) rstd is sqrt(8/7) = 7% too large.)

# %% nbgrader={"grade_id": "rmsnorm_triton", "solution": true}
@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_xr, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / BLOCK_SIZE + eps)  # the block's width
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * n_cols + cols, (x * rstd * w).to(out_ptr.dtype.element_ty),
             mask=mask)


def rmsnorm_triton(x, weight, out, eps):
    n_rows, n_cols = x.shape
    rmsnorm_kernel[(n_rows,)](x, weight, out, n_cols, x.stride(0), eps,
                              BLOCK_SIZE=triton.next_power_of_2(n_cols))
