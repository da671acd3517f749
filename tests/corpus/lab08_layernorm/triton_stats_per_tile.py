# impl: triton
# exercise: layernorm
# status: fail
# reason: elements differ
# (Several rows per program, to give short rows enough work, but the statistics are reduced
# over the whole [ROWS, BLOCK_SIZE] tile (tl.sum without an axis): one mean and one rstd per
# program instead of one per row. Right only when a program holds a single row: here the
# first shape already has three rows in one tile.)

# %% edit layernorm_triton
# <<<
#     out_ptr,  # output, n_rows x n_cols, contiguous
#     n_cols,  # columns per row: the normalised dimension
# ===
#     out_ptr,  # output, n_rows x n_cols, contiguous
#     n_rows,  # rows of x
#     n_cols,  # columns per row: the normalised dimension
# >>>
# <<<
#     BLOCK_SIZE: tl.constexpr,  # a power of two: the columns of one chunk of the row
# ===
#     ROWS: tl.constexpr,  # rows per program: a power of two
#     BLOCK_SIZE: tl.constexpr,  # a power of two: the columns of one chunk of the row
# >>>
# <<<
#     row = tl.program_id(0).to(tl.int64)  # row * stride_xr can pass 2^31 on large inputs
#     x_row = x_ptr + row * stride_xr
# ~~~
#             y = (x - mean) * rstd * w + b
#             tl.store(out_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)
# ===
#     # Rows pid * ROWS ... of x: a [ROWS, BLOCK_SIZE] tile per chunk.
#     rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
#     row_ok = (rows < n_rows)[:, None]  # the last program runs past the last row
#     x_row = x_ptr + rows[:, None] * stride_xr
#     out_row = out_ptr + rows[:, None] * n_cols
#     cols = tl.arange(0, BLOCK_SIZE)[None, :]
#     count = tl.sum(row_ok.to(tl.float32)) * n_cols  # every valid element of the tile
#     # Pass 1, the mean.
#     acc = tl.zeros([ROWS, BLOCK_SIZE], dtype=tl.float32)
#     for k in tl.static_range(N_CHUNKS):
#         c = k * BLOCK_SIZE + cols
#         x = tl.load(x_row + c, mask=row_ok & (c < n_cols), other=0.0)
#         acc += x.to(tl.float32)
#     mean = tl.sum(acc) / count  # the tile's mean, not each row's
#     # Pass 2, the variance around the mean.
#     acc = tl.zeros([ROWS, BLOCK_SIZE], dtype=tl.float32)
#     for k in tl.static_range(N_CHUNKS):
#         c = k * BLOCK_SIZE + cols
#         mask = row_ok & (c < n_cols)
#         x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
#         d = tl.where(mask, x - mean, 0.0)
#         acc += d * d
#     rstd = tl.rsqrt(tl.sum(acc) / count + eps)  # the tile's too
#     # Pass 3, the output.
#     for k in tl.static_range(N_CHUNKS):
#         c = k * BLOCK_SIZE + cols
#         mask = row_ok & (c < n_cols)
#         x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
#         w = tl.load(w_ptr + c, mask=c < n_cols, other=0.0).to(tl.float32)
#         b = tl.load(b_ptr + c, mask=c < n_cols, other=0.0).to(tl.float32)
#         y = (x - mean) * rstd * w + b
#         tl.store(out_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)
# >>>
# <<<
#     num_warps = max(1, min(16, BLOCK_SIZE * x.element_size() // (16 * 32)))
#     layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
#                                 BLOCK_SIZE=BLOCK_SIZE, N_CHUNKS=triton.cdiv(n_cols, BLOCK_SIZE),
#                                 EVEN=n_cols % BLOCK_SIZE == 0, num_warps=num_warps)
# ===
#     num_warps = max(1, min(16, BLOCK_SIZE * x.element_size() // (16 * 32)))
#     ROWS = max(1, CHUNK // BLOCK_SIZE)  # short rows share a program: CHUNK elements a tile
#     layernorm_kernel[(triton.cdiv(n_rows, ROWS),)](
#         x, weight, bias, out, n_rows, n_cols, x.stride(0), eps, ROWS=ROWS,
#         BLOCK_SIZE=BLOCK_SIZE, N_CHUNKS=triton.cdiv(n_cols, BLOCK_SIZE),
#         EVEN=n_cols % BLOCK_SIZE == 0, num_warps=num_warps)
# >>>
