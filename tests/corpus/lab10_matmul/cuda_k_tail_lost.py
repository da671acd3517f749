# impl: cuda
# exercise: matmul_fp32
# status: fail
# reason: [m=1, k=1, n=1]
# reason: elements differ
# (the loop over K tiles stops at the last whole one, k_tiles = k / BK: the last k % 8 columns of a
#  and rows of b never enter the sum. Right when k is a multiple of 8 (64 x 64 x 64, 32 x 128
#  x 16); wrong everywhere else, first on 1 x 1 x 1, where no K tile is whole and c comes out
#  0.)

# %% edit matmul_fp32_cu
# <<<
#     const int k_tiles = (k + BK - 1) / BK;  // the last K tile may be short: zeros fill it
# ===
#     const int k_tiles = k / BK;  // the whole K tiles only
# >>>
