# impl: cuda
# device: cpu
# status: race
# reason: the result depends on thread order
# reason: A missing __syncthreads()?
# (the block's reduction with its first barrier left out: every warp reads the per-warp
#  values from shared memory before the other warps may have written them. Whether it
#  works depends on the order in which the threads happen to run)

# %% edit softmax_cu
# <<<
#     __syncthreads();  // every warp's value is in shared memory before anyone reads it
# ===
# >>>
