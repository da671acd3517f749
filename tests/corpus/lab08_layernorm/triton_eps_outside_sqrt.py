# impl: triton
# exercise: layernorm
# status: fail
# reason: elements differ
# (eps added after the square root, 1 / (sqrt(var) + eps), as some papers write it, instead of
# inside it, 1 / sqrt(var + eps), as torch computes it. At var ~ 1 the two differ by about eps/2
# relative, below the float32 tolerance; where the variance is small against eps they do not:
# x scaled by 1e-3 has var = 1e-6 against eps = 1e-5, and the result is 3x off. A row of 7
# values, whose sample variance can be small, may show it first.)

# %% nbgrader={"grade_id": "layernorm_triton", "solution": true}
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_xr, eps,
                     BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / (tl.sqrt(var) + eps)  # eps outside the root
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * n_cols + cols, (d * rstd * w + b).to(out_ptr.dtype.element_ty),
             mask=mask)


def layernorm_triton(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
                                BLOCK_SIZE=triton.next_power_of_2(n_cols))
