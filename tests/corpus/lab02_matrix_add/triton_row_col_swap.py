# exercise: matrix_add
# impl: triton
# status: fail
# reason: [n_rows=127, n_cols=129]
# reason: still hold the fill value
# (The grid counts row tiles on axis 0, the kernel reads its row tile from axis 1: the tiles
# cover a region of the wrong shape. Unnoticed while one tile covers the matrix, as on 3 x 7.)

# %% edit matrix_add_triton
# <<<
#     pid_m = tl.program_id(axis=0).to(tl.int64)
#     pid_n = tl.program_id(axis=1).to(tl.int64)
# ===
#     pid_m = tl.program_id(axis=1).to(tl.int64)  # swapped: the grid's axis 0 counts row tiles
#     pid_n = tl.program_id(axis=0).to(tl.int64)
# >>>
