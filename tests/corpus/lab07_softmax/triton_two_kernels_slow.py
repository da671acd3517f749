# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% edit softmax_triton
# <<<
#     out_ptr,  # output, n_rows x n_cols, contiguous
# ===
#     out_ptr,  # output, n_rows x n_cols, contiguous
#     stats_ptr,  # scratch: the max and the sum of exponentials of each row
# >>>
# <<<
#     BLOCK_SIZE: tl.constexpr,  # a power of two >= n_cols
# ===
#     BLOCK_SIZE: tl.constexpr,  # a power of two >= n_cols
#     WRITE: tl.constexpr,  # False: the row's statistics; True: the output from them
# >>>
# <<<
#     x = x - tl.max(x, axis=0)
#     e = tl.exp(x)
#     tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)
# ===
#     if WRITE:
#         m = tl.load(stats_ptr + 2 * row)
#         s = tl.load(stats_ptr + 2 * row + 1)
#         tl.store(out_ptr + row * n_cols + offs, tl.exp(x - m) / s, mask=mask)
#     else:
#         m = tl.max(x, axis=0)
#         tl.store(stats_ptr + 2 * row, m)
#         tl.store(stats_ptr + 2 * row + 1, tl.sum(tl.exp(x - m), axis=0))
# >>>
# <<<
#     softmax_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK_SIZE=BLOCK_SIZE,
#                               num_warps=num_warps)
# ===
#     # Correct but slow: one kernel for the statistics, another for the output: x read twice.
#     stats = torch.empty(2 * n_rows, device=x.device, dtype=torch.float32)
#     for write in (False, True):
#         softmax_kernel[(n_rows,)](x, out, stats, n_cols, x.stride(0), BLOCK_SIZE=BLOCK_SIZE,
#                                   WRITE=write, num_warps=num_warps)
# >>>
