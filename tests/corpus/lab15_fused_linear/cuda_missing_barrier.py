# impl: cuda
# status: race
# reason: depends on thread order
# (the barrier after the multiply-adds left out: a fast warp refills the shared tiles with the
#  next K tile while a slower one is still loading fragments of this one. Shapes with one K
#  tile (k <= 32) never refill and pass; the others are wrong or not, depending on the order
#  the warps run in.)

# %% edit linear_gelu_cu
# <<<
#         __syncthreads();  // every warp is done with the tiles before they are refilled
# ===
# >>>
