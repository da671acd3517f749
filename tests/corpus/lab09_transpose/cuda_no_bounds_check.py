# impl: cuda
# status: fail
# reason: [n_rows=1, n_cols=1]
# reason: out-of-bounds write
# (The loads into the tile are bounds-checked, the stores to out are not: on 1 x 1 the 128
#  threads of the one block write 32 x 32 elements of an out that holds one, and the guard
#  after it is overwritten.)

# %% edit transpose_cu
# <<<
#         if (out_row < n_cols && out_col < n_rows)
#             out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
# ===
#         out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
# >>>
