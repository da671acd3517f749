# impl: triton
# exercise: layernorm_backward
# status: pass
# (Honest work, stage 2 by atomics: the launcher zeroes dw and db (outputs arrive holding
# NaN), and each group adds its partial sums into them with tl.atomic_add: one atomic per
# column per group of 32 rows, not per row, so there is little contention. The order of the
# groups' additions may change from run to run on a GPU, and dw and db with it, in their
# last bits: within the tolerance, if not reproducible bit for bit.)

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
    tl.atomic_add(dw_ptr + cols, dw, mask=mask)  # one addition per column per group
    tl.atomic_add(db_ptr + cols, db, mask=mask)


def layernorm_backward_triton(dy, x, mean, rstd, weight, dx, dw, db):
    n_rows, n_cols = x.shape
    dw.zero_()  # the atomics add into them
    db.zero_()
    rows_per_group = 32
    layernorm_backward_kernel[(triton.cdiv(n_rows, rows_per_group),)](
        dy, x, mean, rstd, weight, dx, dw, db, n_rows, n_cols, dy.stride(0), x.stride(0),
        rows_per_group, BLOCK_SIZE=triton.next_power_of_2(n_cols))
