# impl: triton
# exercise: layernorm
# status: fail
# reason: elements differ
# (Several rows per program, to give short rows enough work, but the statistics are reduced
# over the whole [ROWS, BLOCK_SIZE] tile (tl.sum without an axis): one mean and one rstd per
# program instead of one per row. Right only when a program holds a single row: here the
# first shape already has three rows in one tile.)

# %% nbgrader={"grade_id": "layernorm_triton", "solution": true}
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_rows, n_cols, stride_xr, eps,
                     ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xr + cols[None, :], mask=mask,
                other=0.0).to(tl.float32)
    count = tl.sum(mask.to(tl.float32))  # every valid element of the tile
    mean = tl.sum(x) / count  # the tile's mean, not each row's
    d = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(d * d) / count + eps)
    w = tl.load(w_ptr + cols, mask=cols < n_cols).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cols < n_cols).to(tl.float32)
    y = d * rstd * w[None, :] + b[None, :]
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], y.to(out_ptr.dtype.element_ty),
             mask=mask)


def layernorm_triton(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    ROWS = max(1, 1024 // BLOCK_SIZE)
    layernorm_kernel[(triton.cdiv(n_rows, ROWS),)](x, weight, bias, out, n_rows, n_cols,
                                                   x.stride(0), eps, ROWS=ROWS,
                                                   BLOCK_SIZE=BLOCK_SIZE)
