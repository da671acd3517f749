# exercise: matrix_add
# impl: triton
# status: fail
# reason: [n_rows=33, n_cols=129, x rows padded by 31]
# reason: elements differ
# (The inputs are indexed with the shape, as if contiguous: row i at i * n_cols. Right on every
# contiguous matrix, wrong on the first padded one.)

# %% edit matrix_add_triton
# <<<
#     x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
#     y = tl.load(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
# ===
#     offs = offs_m[:, None] * n_cols + offs_n[None, :]  # the strides are never used
#     x = tl.load(x_ptr + offs, mask=mask)
#     y = tl.load(y_ptr + offs, mask=mask)
# >>>
