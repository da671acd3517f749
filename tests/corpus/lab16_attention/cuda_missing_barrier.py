# impl: cuda
# exercise: attention
# status: race
# device: cpu
# reason: depends on thread order
# (the barrier after the K/V tiles' copies left out: __pipeline_wait_prior waits for this
#  thread's own copies only, and a warp multiplies its q fragments with a tile that the other
#  warps' threads have not finished copying into shared memory. Which rows of the tile are
#  there yet depends on the order the threads run in.)

# %% edit attention_cu
# <<<
#         __syncthreads();         // tile t has landed, every thread's pieces of it
# ===
# >>>
