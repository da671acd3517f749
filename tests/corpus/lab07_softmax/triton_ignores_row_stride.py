# impl: triton
# status: fail
# reason: [n_rows=33, n_cols=129, x rows padded by 31]
# reason: NaN too when the output starts at zero
# (rows read at n_cols apart: the padding between x's rows is NaN, and so is the softmax of a
#  row that reads it. The hint names that cause, not the NaN-filled output: the same launch on
#  a zeroed output gives the same NaNs)

# %% edit softmax_triton
# <<<
#     x = tl.load(x_ptr + row * stride_xr + offs, mask=mask, other=-float("inf"))
# ===
#     x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))  # no padding?
# >>>
