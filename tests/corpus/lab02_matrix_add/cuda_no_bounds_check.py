# exercise: matrix_add
# impl: cuda
# status: fail
# reason: out-of-bounds write
# reason: [n_rows=1, n_cols=1]
# (The reads are guarded, the store is not: the threads of a tile on the edge that fall
# outside the matrix write past the end of out.)

# %% edit matrix_add_cu
# <<<
#     if (col >= n_cols) return;
# ===
# >>>
# <<<
#         if (row0 + k < n_rows) *op = *xp + *yp;
# ===
#         *op = row0 + k < n_rows && col < n_cols ? *xp + *yp : 0.0f;  // store unguarded
# >>>
