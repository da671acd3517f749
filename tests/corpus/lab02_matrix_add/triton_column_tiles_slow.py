# exercise: matrix_add
# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct everywhere, but each tile is one column of 1024 rows — every access is 4 bytes out
# of a different row, the Triton form of threads running down the columns.)

# %% edit matrix_add_triton
# <<<
#     BLOCK_SIZE_M, BLOCK_SIZE_N = 32, 128
# ===
#     BLOCK_SIZE_M, BLOCK_SIZE_N = 1024, 1  # one column per tile
# >>>
