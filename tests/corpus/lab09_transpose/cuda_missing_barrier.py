# impl: cuda
# device: cpu
# status: race
# reason: [n_rows=3, n_cols=7]
# reason: wrong differently
# reason: A missing __syncthreads()?
# (the solution's tile with the barrier between the two phases left out: a thread reads
#  tile[threadIdx.x][...], loaded by threads of other warps that may not have run yet. The CPU
#  backend starts each block's shared memory as NaN and runs each block's threads one after
#  another: in the forward order some elements of 3 x 7 come out NaN, in the reverse order
#  others are wrong. Neither order is right, as a transpose's tile is exchanged among all
#  the block's warps, but the two are wrong differently: a race. On a GPU the outcome depends
#  on when each warp's loads happen to land, wrong in one run and perhaps right in the next,
#  so no one verdict can be named there: a CPU-only control)

# %% edit transpose_cu
# <<<
#     // Every element of the tile is loaded (by threads of other warps, too) before any thread
#     // reads one back. All threads reach this line: none has returned early.
#     __syncthreads();
# ===
# >>>
