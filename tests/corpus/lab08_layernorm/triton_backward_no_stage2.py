# impl: triton
# exercise: layernorm_backward
# status: fail
# reason: [n_rows=65, n_cols=129, float32] dw:
# reason: elements differ
# (Stage 2 missing: each program stores its group's sums straight into dw and db instead of
# a row of the partial buffers, so every group overwrites the others' and the last one to
# finish wins. dx is right everywhere, and so are dw and db while all rows fit one group of
# 32; from 33 rows on they hold one group's sum, not all of them.)

# %% edit layernorm_backward_triton
# <<<
#     tl.store(partial_dw_ptr + group * n_cols + cols, dw, mask=mask)
#     tl.store(partial_db_ptr + group * n_cols + cols, db, mask=mask)
#     if TAIL_SIZE > 0:
#         tl.store(partial_dw_ptr + group * n_cols + t_cols, dw_t, mask=t_mask)
#         tl.store(partial_db_ptr + group * n_cols + t_cols, db_t, mask=t_mask)
# ===
#     tl.store(partial_dw_ptr + cols, dw, mask=mask)  # every group writes the same n_cols
#     tl.store(partial_db_ptr + cols, db, mask=mask)
#     if TAIL_SIZE > 0:
#         tl.store(partial_dw_ptr + t_cols, dw_t, mask=t_mask)
#         tl.store(partial_db_ptr + t_cols, db_t, mask=t_mask)
# >>>
# <<<
#     ROWS_PER_GROUP = triton.cdiv(n_rows, 2 * sms)
# ===
#     ROWS_PER_GROUP = 32
# >>>
# <<<
#         dy, x, mean, rstd, weight, dx, partial_dw, partial_db, n_rows, n_cols, dy.stride(0),
# ===
#         dy, x, mean, rstd, weight, dx, dw, db, n_rows, n_cols, dy.stride(0),  # no stage 2
# >>>
# <<<
#     BLOCK_N = 64
#     column_sum_kernel[(triton.cdiv(n_cols, BLOCK_N),)](
#         partial_dw, partial_db, dw, db, n_groups, n_cols, BLOCK_G=32, BLOCK_N=BLOCK_N)
# ===
# >>>
