# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (The naive transpose in Triton: each program reads a stretch of 1024 columns of one row of
#  x, coalesced, and writes it down a column of out, one float every n_rows floats: a tile
#  with one row leaves the compiler nothing to stage, and every store is 4 bytes in its own
#  sector. Correct everywhere.)

# %% edit transpose_triton
# <<<
#     BLOCK_SIZE_M, BLOCK_SIZE_N = 64, 64  # 4096 floats: 32 per thread of the 4 default warps
# ===
#     BLOCK_SIZE_M, BLOCK_SIZE_N = 1, 1024  # a stretch of one row of x per program
# >>>
