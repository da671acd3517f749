# impl: cuda
# status: race
# reason: [m=24, k=256, n=40, bfloat16]
# reason: depends on thread order
# (the barrier after the multiply-adds left out: a fast warp refills the shared tiles with the
#  next K tile while a slower one is still loading fragments of this one. Shapes with one K
#  tile (k <= 64) never refill and pass; k = 256 is wrong or not, depending on the order the
#  warps run in.)

# %% edit int8_matmul_cu
# <<<
#         __syncthreads();  // every warp is done with the tiles before they are refilled
# ===
# >>>
