# exercise: matrix_add
# impl: triton
# status: pass
# (Honest work — a 1-D grid whose program ids are split into a row tile and a column tile with
# // and %, instead of a 2-D grid. The notebook teaches the 2-D grid; this one is as right.)

# %% edit matrix_add_triton
# <<<
#     pid_m = tl.program_id(axis=0).to(tl.int64)
#     pid_n = tl.program_id(axis=1).to(tl.int64)
# ===
#     pid = tl.program_id(axis=0)  # a 1-D grid: one id per tile, split into row and column
#     tiles_n = tl.cdiv(n_cols, BLOCK_SIZE_N)
#     pid_m = (pid // tiles_n).to(tl.int64)
#     pid_n = (pid % tiles_n).to(tl.int64)
# >>>
# <<<
#     grid = (triton.cdiv(n_rows, BLOCK_SIZE_M), triton.cdiv(n_cols, BLOCK_SIZE_N))
# ===
#     grid = (triton.cdiv(n_rows, BLOCK_SIZE_M) * triton.cdiv(n_cols, BLOCK_SIZE_N),)
# >>>
