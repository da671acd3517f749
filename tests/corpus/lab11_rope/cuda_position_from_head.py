# impl: cuda
# exercise: rope
# status: fail
# reason: elements differ
# reason: [tokens=3, heads=2, head_dim=8, half_dim=4, bfloat16]
# (One block per token, but the table row is taken as the head, h, where the token belongs:
# rope_kernel hands rotate_heads the tables' starts, and rotate_heads reads row h of them.
# Every token's heads get the angles of positions 0, 1, ... Right on the first case (one
# token, one head); the second has more tokens than heads, so the rows it reads exist and
# are wrong.)

# %% edit rope_cu
# <<<
#             rotate_chunk(a, b, c + j, s + j, o1, o2);
# ===
#             const int t = h * half_dim + j;  // row h of the table: should be the token's
#             rotate_chunk(a, b, c + t, s + t, o1, o2);
# >>>
# <<<
#             o[j] = __float2bfloat16_rn(x1 * c[j] - x2 * s[j]);
#             o[half_dim + j] = __float2bfloat16_rn(x2 * c[j] + x1 * s[j]);
# ===
#             const int t = h * half_dim + j;  // row h of the table: should be the token's
#             o[j] = __float2bfloat16_rn(x1 * c[t] - x2 * s[t]);
#             o[half_dim + j] = __float2bfloat16_rn(x2 * c[t] + x1 * s[t]);
# >>>
# <<<
#                  stride_xh, cos + token * half_dim, sin + token * half_dim, aligned);
# ===
#                  stride_xh, cos, sin, aligned);  // the tables' starts
# >>>
