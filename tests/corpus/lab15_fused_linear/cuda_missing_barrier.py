# impl: cuda
# exercise: linear_gelu
# status: race
# device: cpu
# reason: [m=24, k=256, n=40, bfloat16]
# reason: depends on thread order
# (the K loop's one barrier left out: a fast warp loads the next K tile's fragments before
#  slower threads' copies of it have landed (each thread waits for its own copies only), and
#  its refill overwrites a buffer that a slower warp is still loading fragments from. Shapes
#  with one K tile (k <= 128 at m <= 128) end the loop at its first barrier's place and pass;
#  k = 256 is wrong or not, depending on the order the warps run in.)

# %% edit linear_gelu_cu
# <<<
#                     __syncthreads();  // ... every thread's; every warp is done loading tile t
# ===
# >>>
