# impl: cuda
# exercise: mlp
# status: race
# device: cpu
# reason: [m=48, d=65, f=64, bfloat16]
# reason: depends on thread order
# (The K loop's one barrier left out, in the block both kernels share: a fast warp loads the
#  next K tile's fragments before slower threads' copies of it have landed (each thread waits
#  for its own copies only), and its refill overwrites a buffer that a slower warp is still
#  loading fragments from. Shapes with one K tile in both kernels (every public shape: d <= 64
#  and f <= 128 at m <= 128, the decode kernels' 64- and 128-deep tiles) end the loop at the
#  barrier's place and pass; d = 65 (2 K tiles in the gate/up kernel) and the 130-row shape
#  (the prefill kernels, 32-deep tiles) are wrong or not, depending on the order the warps run
#  in.)

# %% edit mlp_cu
# <<<
#                 __syncthreads();  // ... every thread's; every warp is done loading tile t
# ===
# >>>
