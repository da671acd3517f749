# impl: cuda
# exercise: matmul_fp32
# device: cpu
# status: race
# reason: [m=1, k=1, n=1]
# reason: A missing __syncthreads()?
# (the notebook's kernel without the __syncthreads() between filling the first K tile's
#  shared pieces and reading them. Each thread reads as[buf][kk][...] and bs[buf][kk][...]
#  filled by threads of other warps; the CPU backend starts shared memory as NaN and runs the
#  block's threads one after another, so in one order a thread reads pieces not yet filled,
#  in the other it does not: the two runs differ. On a GPU the outcome depends on when each
#  warp's loads land: a CPU-only control.)

# %% edit matmul_fp32_cu
# <<<
#     __syncthreads();  // K tile 0 is complete before any thread reads it
# ===
# >>>
