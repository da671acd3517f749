# impl: triton
# status: fail
# reason: [n_rows=3, n_cols=7]
# reason: out-of-bounds write
# (Rows and columns swapped in out's row stride: the store puts x[i, j] at j * n_cols + i, as
#  if out had x's shape, where out's rows are n_rows apart. Right on 1 x 1 (and on any square
#  matrix); on 3 x 7 the offsets run up to 6 * 7 + 2 = 44 in an output of 21 elements, and
#  the guard after it is overwritten.)

# %% edit transpose_triton
# <<<
#     tl.store(out_ptr + offs_n[None, :] * n_rows + offs_m[:, None], x, mask=mask)
# ===
#     tl.store(out_ptr + offs_n[None, :] * n_cols + offs_m[:, None], x, mask=mask)  # n_rows
# >>>
