# impl: cuda
# exercise: layernorm
# status: fail
# reason: [n_rows=3, n_cols=7, float32]
# reason: elements differ
# (The variance divided by n_cols - 1, the unbiased estimator that torch.var and numpy's
# ddof=1 compute, where layer norm divides by n_cols (torch.var(unbiased=False)). rstd is
# sqrt((n - 1) / n) of the right one: 7% low at 7 columns, 0.01% at 5000. At one column it
# would divide 0 by 0.)

# %% edit layernorm_cu
# <<<
#     const float rstd = rsqrtf(block_sum(sq) / n_cols + eps);  // biased variance, eps inside
# ===
#     const float rstd = rsqrtf(block_sum(sq) / (n_cols - 1) + eps);  // unbiased
# >>>
