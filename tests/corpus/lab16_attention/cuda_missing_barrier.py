# impl: cuda
# exercise: attention
# status: race
# device: cpu
# reason: depends on thread order
# (the barrier after the K/V tiles' loads left out: a warp multiplies its q fragments with a
#  tile that the other warps' threads have not finished copying into shared memory. Which rows
#  of the tile are there yet depends on the order the threads run in.)

# %% edit attention_cu
# <<<
#         __syncthreads();  // the tiles have landed
# ===
# >>>
