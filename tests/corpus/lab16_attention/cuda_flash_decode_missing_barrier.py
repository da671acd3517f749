# impl: cuda
# exercise: flash_decode
# status: race
# device: cpu
# reason: depends on thread order
# (The barrier between the warps' writes of their partials to shared memory (accumulators,
#  row sums and maxima) and the block's merge of them left out: a thread merges the warps'
#  m, l and accumulators before the other warps have written theirs. What it reads depends on
#  the order the threads run in.)

# %% edit flash_decode_cu
# <<<
#     __syncthreads();  // every warp's accumulators, sums and maxima are in shared memory
# ===
# >>>
