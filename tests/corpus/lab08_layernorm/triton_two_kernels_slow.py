# impl: triton
# exercise: layernorm
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct, in two kernels: the first reads x and writes each row's mean and rstd, the second
# reads x again and normalises it. x is read twice from memory (the rows of a 256 MiB matrix
# are long gone from the L2 by then): 3 passes of traffic where the fused kernel makes 2, at
# the same bandwidth 0.67x the reference; the bar is 0.8x, nothing at 0.6x.)

# %% edit layernorm_triton
# <<<
#     out_ptr,  # output, n_rows x n_cols, contiguous
# ===
#     out_ptr,  # output, n_rows x n_cols, contiguous
#     stats_ptr,  # scratch: the mean and rstd of each row, 2 * n_rows float32
# >>>
# <<<
#     EVEN: tl.constexpr,  # n_cols % BLOCK_SIZE == 0: no chunk runs past the row, no mask
# ===
#     EVEN: tl.constexpr,  # n_cols % BLOCK_SIZE == 0: no chunk runs past the row, no mask
#     NORMALISE: tl.constexpr,  # False: the first kernel (statistics); True: the second (output)
# >>>
#     # Pass 1, the mean: each lane adds up its column of every chunk, one tl.sum at the end.
#     acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
#     for k in tl.static_range(N_CHUNKS):  # unrolled: every chunk's load issued up front
#         c = k * BLOCK_SIZE + cols
#         if EVEN:  # decided at compile time: no mask code at all
#             x = tl.load(x_row + c)
#         else:
#             x = tl.load(x_row + c, mask=c < n_cols, other=0.0)  # past the row: 0, adds nothing
#         acc += x.to(tl.float32)
#     mean = tl.sum(acc, axis=0) / n_cols
#     # Pass 2, the variance around the mean (no cancellation). The same loads as pass 1 and no
#     # store between them: the compiler reuses pass 1's registers instead of reading again.
#     acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
#     for k in tl.static_range(N_CHUNKS):
#         c = k * BLOCK_SIZE + cols
#         if EVEN:
#             d = tl.load(x_row + c).to(tl.float32) - mean
#         else:
#             mask = c < n_cols
#             x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
#             d = tl.where(mask, x - mean, 0.0)  # past the row x - mean is -mean: zero it
#         acc += d * d
#     rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)  # biased: divided by n, as torch does
#     # Pass 3, the output. After the first store the compiler cannot tell whether out overlaps
#     # x, so it loads x again: from the L1 cache, where pass 1 left the row a moment ago.
# ===
#     if NORMALISE:  # the second kernel: the first one's statistics
#         mean = tl.load(stats_ptr + 2 * row)
#         rstd = tl.load(stats_ptr + 2 * row + 1)
#     else:  # the first kernel: passes 1 and 2, the statistics to memory, no output
#         # Pass 1, the mean: each lane adds up its column of every chunk, one tl.sum at the end.
#         acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
#         for k in tl.static_range(N_CHUNKS):  # unrolled: every chunk's load issued up front
#             c = k * BLOCK_SIZE + cols
#             if EVEN:  # decided at compile time: no mask code at all
#                 x = tl.load(x_row + c)
#             else:
#                 x = tl.load(x_row + c, mask=c < n_cols, other=0.0)  # past the row: 0
#             acc += x.to(tl.float32)
#         mean = tl.sum(acc, axis=0) / n_cols
#         # Pass 2, the variance around the mean (no cancellation). The same loads as pass 1 and no
#         # store between them: the compiler reuses pass 1's registers instead of reading again.
#         acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
#         for k in tl.static_range(N_CHUNKS):
#             c = k * BLOCK_SIZE + cols
#             if EVEN:
#                 d = tl.load(x_row + c).to(tl.float32) - mean
#             else:
#                 mask = c < n_cols
#                 x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
#                 d = tl.where(mask, x - mean, 0.0)  # past the row x - mean is -mean: zero it
#             acc += d * d
#         rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)  # biased: divided by n, as torch does
#         tl.store(stats_ptr + 2 * row, mean)
#         tl.store(stats_ptr + 2 * row + 1, rstd)
#         return
#     # Pass 3, the output, in the second kernel: x read again, from memory.
# >>>
# <<<
#     layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
#                                 BLOCK_SIZE=BLOCK_SIZE, N_CHUNKS=triton.cdiv(n_cols, BLOCK_SIZE),
#                                 EVEN=n_cols % BLOCK_SIZE == 0, num_warps=num_warps)
# ===
#     stats = torch.empty(2 * n_rows, device=x.device, dtype=torch.float32)
#     for normalise in (False, True):
#         layernorm_kernel[(n_rows,)](x, weight, bias, out, stats, n_cols, x.stride(0), eps,
#                                     BLOCK_SIZE=BLOCK_SIZE,
#                                     N_CHUNKS=triton.cdiv(n_cols, BLOCK_SIZE),
#                                     EVEN=n_cols % BLOCK_SIZE == 0, NORMALISE=normalise,
#                                     num_warps=num_warps)
# >>>
