# impl: cuda
# status: fail
# reason: [n_rows=127, n_cols=129]
# reason: still hold the fill value
# (Rows and columns swapped in the launch: the kernel is the notebook's (blockIdx.x counts
#  tiles across the columns of x), the grid's x counts tiles down the rows. The blocks cover a
#  region of the wrong shape and the bounds checks keep every access inside the matrix, so on
#  127 x 129 (4 tiles down, 5 across, launched as 5 down, 4 across) the last column of x, row
#  128 of out, is never written. Unnoticed while one tile covers the matrix, as on 3 x 7 and
#  12 x 20.)

# %% edit transpose_cuda
# <<<
#     grid = (triton.cdiv(n_cols, tile), triton.cdiv(n_rows, tile))
# ===
#     grid = (triton.cdiv(n_rows, tile), triton.cdiv(n_cols, tile))  # swapped: x counts columns
# >>>
