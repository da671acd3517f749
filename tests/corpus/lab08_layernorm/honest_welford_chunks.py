# impl: triton
# exercise: layernorm
# status: pass
# (Honest work: the statistics in one loop at run time over the row's chunks (the solution's
# BLOCK_SIZE), which merges each chunk's count, mean and sum of squared deviations into
# running ones (Welford's update, in Chan's form for a whole chunk: no sum of squares of raw
# values, no cancellation); then the solution's pass 3 normalises. It reads x twice (the second
# time from cache), as the solution's unrolled chunks do, and passes every check.)

# %% edit layernorm_triton
# <<<
#     # Pass 1, the mean: each lane adds up its column of every chunk, one tl.sum at the end.
#     acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
# ~~~
#         acc += d * d
#     rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)  # biased: divided by n, as torch does
# ===
#     # Passes 1 and 2 in one loop: count, mean and m2 (the sum of squared deviations from the
#     # mean) of the columns so far, each chunk's merged in (Chan's form of Welford's update).
#     count = tl.full([], 0.0, tl.float32)
#     mean = tl.full([], 0.0, tl.float32)
#     m2 = tl.full([], 0.0, tl.float32)
#     for start in range(0, n_cols, BLOCK_SIZE):
#         c = start + cols
#         mask = c < n_cols  # the last chunk runs past the row
#         x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
#         n_b = tl.sum(mask.to(tl.float32), axis=0)
#         mean_b = tl.sum(x, axis=0) / n_b
#         d = tl.where(mask, x - mean_b, 0.0)
#         total = count + n_b
#         delta = mean_b - mean
#         mean += delta * (n_b / total)
#         m2 += tl.sum(d * d, axis=0) + delta * delta * (count * n_b / total)
#         count = total
#     rstd = tl.rsqrt(m2 / n_cols + eps)  # biased: divided by n, as torch does
# >>>
