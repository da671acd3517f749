# impl: cuda
# status: exception
# reason: __shfl_xor_sync at kernel.cu line 12
# reason: which do not exist
# status-gpu: pass
# (warp-shuffle reductions with a full mask, launched with one thread per 16 columns, not
#  rounded up to a whole warp: a row of 100 columns gives a block of 7 threads, one warp of 7
#  lanes; the mask names 25 lanes that do not exist. Undefined behaviour, which the CPU backend
#  refuses. On an H200 it computes the right result and compute-sanitizer's synccheck reports
#  nothing (lanes past the block count as inactive there): the GPU grades it correct.)

# %% edit softmax_cuda
# <<<
#     # Enough threads for the row, a power of two, at least a warp.
#     threads = max(32, triton.next_power_of_2(triton.cdiv(n_cols, cols_per_thread)))
# ===
#     # Enough threads for the row.
#     threads = triton.cdiv(n_cols, cols_per_thread)
# >>>
