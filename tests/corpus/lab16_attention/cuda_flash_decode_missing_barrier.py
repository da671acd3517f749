# impl: cuda
# exercise: flash_decode
# status: race
# device: cpu
# reason: depends on thread order
# (The barrier between the lane groups' writes of their partials to shared memory and the
#  block's reads of all of them left out: a thread combines the groups' m, l and acc before the
#  other groups have written theirs. What it reads depends on the order the threads run in.)

# %% edit flash_decode_cu
# <<<
#     __syncthreads();  // every group's partial is in shared memory
# ===
# >>>
