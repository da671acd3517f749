# impl: triton
# exercise: layernorm
# status: fail
# reason: [n_rows=3, n_cols=7
# reason: elements differ
# (The masked lanes load as 0, which is harmless in the sum for the mean, but x - mean is
# -mean there, and the variance sums its square over the whole block: (BLOCK_SIZE - n_cols)
# mean^2 too much. Right only when n_cols is a power of two (no masked lanes) or a row's mean
# is 0.)

# %% nbgrader={"grade_id": "layernorm_triton", "solution": true}
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_xr, eps,
                     BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = x - mean  # -mean on the masked lanes
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * n_cols + cols, (d * rstd * w + b).to(out_ptr.dtype.element_ty),
             mask=mask)


def layernorm_triton(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
                                BLOCK_SIZE=triton.next_power_of_2(n_cols))
