# impl: cuda
# status: pass
# (honest work: the handout's deterministic alternative to atomics. A scratch buffer of one
#  partial sum per block (an allocation), the kernel launched twice: once over x into the
#  partials, once with a single block over the partials into out. No zeroing needed, and the
#  same input gives the same bits every run)

# %% edit vector_sum_cu
# <<<
#     // 4. Grid: one atomic per block.
#     if (threadIdx.x == 0) atomicAdd(out, v);
# ===
#     // 4. Grid: one partial sum per block, out[blockIdx.x]; a second launch adds them.
#     if (threadIdx.x == 0) out[blockIdx.x] = v;
# >>>

# %% edit vector_sum_cuda
# <<<
#     out.zero_()  # the blocks add into out: it arrives full of NaN
#     vector_sum_kernel_cu(
# ~~~
#         grid=(blocks, 1),
#     )
# ===
#     # Two passes, no atomics: one partial sum per block, then one block over the partials.
#     partial = torch.empty(blocks, dtype=torch.float32, device=x.device)
#     vector_sum_kernel_cu(np.uintp(x.data_ptr()), np.uintp(partial.data_ptr()), np.int32(n),
#                          block=(threads, 1, 1), grid=(blocks, 1))
#     vector_sum_kernel_cu(np.uintp(partial.data_ptr()), np.uintp(out.data_ptr()),
#                          np.int32(blocks), block=(1024, 1, 1), grid=(1, 1))
# >>>
