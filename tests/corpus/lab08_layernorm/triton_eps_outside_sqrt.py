# impl: triton
# exercise: layernorm
# status: fail
# reason: elements differ
# (eps added after the square root, 1 / (sqrt(var) + eps), as some papers write it, instead of
# inside it, 1 / sqrt(var + eps), as torch computes it. At var ~ 1 the two differ by about eps/2
# relative, below the float32 tolerance; where the variance is small against eps they do not:
# x scaled by 1e-3 has var = 1e-6 against eps = 1e-5, and the result is 3x off. A row of 7
# values, whose sample variance can be small, may show it first.)

# %% edit layernorm_triton
# <<<
#     rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)  # biased: divided by n, as torch does
# ===
#     rstd = 1.0 / (tl.sqrt(tl.sum(acc, axis=0) / n_cols) + eps)  # eps outside the root
# >>>
