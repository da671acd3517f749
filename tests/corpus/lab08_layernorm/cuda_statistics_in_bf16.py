# impl: cuda
# exercise: layernorm
# status: fail
# reason: bfloat16]
# reason: elements differ
# (Each thread adding its columns into accumulators of the input's type T:
# right in float32, wrong in bfloat16, whose 8 significant bits cannot hold a running sum.
# Once a lane's sum of squares passes 128, bfloat16 steps by 1: smaller squares vanish and
# the rest are rounded to whole numbers, so the variance comes out percents off. Statistics
# belong in float32 whatever the data's type.)

# %% edit layernorm_cu
# <<<
#     float sum = 0.0f;
# ===
#     T sum = from_float<T>(0.0f);  // in T
# >>>
# <<<
#         for (int j = 0; j < PACK; ++j) sum += chunk_at<T>(v[k], j);
# ===
#         for (int j = 0; j < PACK; ++j)
#             sum = from_float<T>(to_float(sum) + chunk_at<T>(v[k], j));  // rounded to T
# >>>
# <<<
#     const float mean = block_sum(sum) / n_cols;
# ===
#     const float mean = block_sum(to_float(sum)) / n_cols;
# >>>
# <<<
#     float sq = 0.0f;
# ===
#     T sq = from_float<T>(0.0f);  // in T
# >>>
# <<<
#             sq += d * d;
# ===
#             sq = from_float<T>(to_float(sq) + d * d);  // rounded to T
# >>>
# <<<
#     const float rstd = rsqrtf(block_sum(sq) / n_cols + eps);  // biased variance, eps inside
# ===
#     const float rstd = rsqrtf(block_sum(to_float(sq)) / n_cols + eps);
# >>>
