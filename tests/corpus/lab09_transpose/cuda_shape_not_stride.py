# impl: cuda
# status: fail
# reason: [n_rows=33, n_cols=129, x rows padded by 31]
# reason: elements differ
# (x is indexed with its shape, row * n_cols + col, as if its rows were contiguous: the stride
#  is passed and never used. Right on every contiguous matrix; on the first padded one, row i
#  is read from i * 129 instead of i * 160, partly from the NaN padding between the rows.)

# %% edit transpose_cu
# <<<
#             tile[threadIdx.y + k][threadIdx.x] = x[(long long)row * stride_xm + col];
# ===
#             tile[threadIdx.y + k][threadIdx.x] = x[(long long)row * n_cols + col];  // stride_xm
# >>>
