# impl: cuda
# device: cpu
# status: race
# reason: the result depends on thread order
# reason: A missing __syncthreads()?
# (the block's reduction with its barrier left out: the first warp reads the other warps'
#  sums from shared memory before they may have written them. Without a GPU the CPU
#  backend runs each block's threads forward, then in reverse order: one order reads stale
#  sums, the other does not, so the two results differ. On a GPU the outcome depends on how
#  the warps happen to be scheduled: often right, sometimes not)

# %% edit vector_sum_cu
# <<<
#     __syncthreads();  // every warp's sum is in shared memory before the first warp reads them
# ===
# >>>
