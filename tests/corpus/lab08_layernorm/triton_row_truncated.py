# impl: triton
# exercise: layernorm
# status: fail
# reason: [n_rows=3, n_cols=5000, float32]
# reason: still hold the fill value
# (The block is capped at 4096 columns, as a 1-D kernel's BLOCK_SIZE usually is, but the
# kernel still assumes that one block holds the whole row: a row of 5000 gets statistics of
# its first 4096 values, and its last 904 outputs are never written. Right on every row of up
# to 4096 columns.)

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
    rstd = tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * n_cols + cols, (d * rstd * w + b).to(out_ptr.dtype.element_ty),
             mask=mask)


def layernorm_triton(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 4096)  # "large enough"
    layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
                                BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
