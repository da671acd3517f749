# impl: triton
# exercise: layernorm
# status: fail
# reason: elements differ
# (weight applied to x before the statistics, normalise(x * weight) + bias, instead of after
# them: the per-feature scale is then normalised away along with the row's own, and every row
# comes out wrong.)

# %% nbgrader={"grade_id": "layernorm_triton", "solution": true}
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_xr, eps,
                     BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    xw = x * w  # scaled first
    mean = tl.sum(xw, axis=0) / n_cols
    d = tl.where(mask, xw - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    tl.store(out_ptr + row * n_cols + cols, (d * rstd + b).to(out_ptr.dtype.element_ty),
             mask=mask)


def layernorm_triton(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
                                BLOCK_SIZE=triton.next_power_of_2(n_cols))
