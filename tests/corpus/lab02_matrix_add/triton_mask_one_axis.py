# exercise: matrix_add
# impl: triton
# status: fail
# reason: out-of-bounds write
# reason: [n_rows=1, n_cols=1]
# reason: right after its last element
# (The mask tests the rows only: the columns of a tile past n_cols are loaded and stored too,
# into the next row, and past the end of out for the last one.)

# %% edit matrix_add_triton
# <<<
#     mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)  # both edges
# ===
#     mask = offs_m[:, None] < n_rows  # and the columns?
# >>>
