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
# def layernorm_kernel(
#     x_ptr,  # input, n_rows x n_cols, rows stride_xr apart
# ~~~
#                                 BLOCK_SIZE=BLOCK_SIZE, N_CHUNKS=triton.cdiv(n_cols, BLOCK_SIZE),
#                                 EVEN=n_cols % BLOCK_SIZE == 0, num_warps=num_warps)
# ===
# def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, stats_ptr, n_cols, stride_xr, eps,
#                      BLOCK_SIZE: tl.constexpr, NORMALISE: tl.constexpr):
#     row = tl.program_id(0).to(tl.int64)
#     cols = tl.arange(0, BLOCK_SIZE)
#     mask = cols < n_cols
#     x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
#     if NORMALISE:
#         mean = tl.load(stats_ptr + 2 * row)
#         rstd = tl.load(stats_ptr + 2 * row + 1)
#         w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
#         b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
#         y = (x - mean) * rstd * w + b
#         tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)
#     else:
#         mean = tl.sum(x, axis=0) / n_cols
#         d = tl.where(mask, x - mean, 0.0)
#         tl.store(stats_ptr + 2 * row, mean)
#         tl.store(stats_ptr + 2 * row + 1, tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + eps))
#
#
# def layernorm_triton(x, weight, bias, out, eps):
#     n_rows, n_cols = x.shape
#     stats = torch.empty(2 * n_rows, device=x.device, dtype=torch.float32)
#     BLOCK_SIZE = triton.next_power_of_2(n_cols)
#     num_warps = min(max(BLOCK_SIZE // 1024, 4), 16)
#     for normalise in (False, True):
#         layernorm_kernel[(n_rows,)](x, weight, bias, out, stats, n_cols, x.stride(0), eps,
#                                     BLOCK_SIZE=BLOCK_SIZE, NORMALISE=normalise,
#                                     num_warps=num_warps)
# >>>
