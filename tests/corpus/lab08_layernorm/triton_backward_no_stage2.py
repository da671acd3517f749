# impl: triton
# exercise: layernorm_backward
# status: fail
# reason: [n_rows=65, n_cols=129, float32] dw:
# reason: elements differ
# (Stage 2 missing: each program stores its group's sums straight into dw and db instead of
# a row of the partial buffers, so every group overwrites the others' and the last one to
# finish wins. dx is right everywhere, and so are dw and db while all rows fit one group of
# 32; from 33 rows on they hold one group's sum, not all of them.)

# %% nbgrader={"grade_id": "layernorm_backward_triton", "solution": true}
@triton.jit
def layernorm_backward_kernel(dy_ptr, x_ptr, mean_ptr, rstd_ptr, w_ptr, dx_ptr, dw_ptr, db_ptr,
                              n_rows, n_cols, stride_dyr, stride_xr, rows_per_group,
                              BLOCK_SIZE: tl.constexpr):
    group = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    db = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    first = group.to(tl.int64) * rows_per_group
    last = tl.minimum(first + rows_per_group, n_rows)
    for row in range(first, last):
        x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * stride_dyr + cols, mask=mask, other=0.0).to(tl.float32)
        mean = tl.load(mean_ptr + row)
        rstd = tl.load(rstd_ptr + row)
        xhat = (x - mean) * rstd
        g = dy * w
        mean_g = tl.sum(g, axis=0) / n_cols
        mean_gx = tl.sum(g * xhat, axis=0) / n_cols
        dx = (g - mean_g - xhat * mean_gx) * rstd
        tl.store(dx_ptr + row * n_cols + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(dw_ptr + cols, dw, mask=mask)  # every group writes the same n_cols elements
    tl.store(db_ptr + cols, db, mask=mask)


def layernorm_backward_triton(dy, x, mean, rstd, weight, dx, dw, db):
    n_rows, n_cols = x.shape
    rows_per_group = 32
    layernorm_backward_kernel[(triton.cdiv(n_rows, rows_per_group),)](
        dy, x, mean, rstd, weight, dx, dw, db, n_rows, n_cols, dy.stride(0), x.stride(0),
        rows_per_group, BLOCK_SIZE=triton.next_power_of_2(n_cols))
