# impl: cuda
# exercise: layernorm
# device: cpu
# status: race
# reason: the result depends on thread order
# (block_sum without its second __syncthreads(). layernorm calls it twice: a warp that
# leaves the first call early goes on to the second and overwrites its slot of per_warp with
# its sum of squares while slower warps are still reading the first call's sums there. Right
# whenever one warp holds the whole row (up to 512 float32 columns); past that, other warps
# read a sum of squares as part of the mean, in either thread order. On a GPU it depends on
# timing, and may well pass: a CPU-only control.)

# %% edit layernorm_cu
# <<<
#     __syncthreads();  // everyone has read per_warp before the next block_sum writes it
# ===
# >>>
