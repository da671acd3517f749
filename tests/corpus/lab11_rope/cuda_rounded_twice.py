# impl: cuda
# exercise: rope
# status: fail
# reason: elements differ
# (bfloat16 arithmetic, as torch does it when the tables are cast to the model's dtype: each
# product rounded to bfloat16, then their difference rounded again. x1 * c - x2 * s cancels
# often; the products' rounding errors (up to 2^-8 of each product) are then large against
# the result: about 8% of the outputs fall beyond one bfloat16 ulp of the exact value.)

# %% edit rope_cu
# <<<
# // Your __device__ helpers go here, above the kernel that calls them (see the hints).
# ===
# // Your __device__ helpers go here, above the kernel that calls them (see the hints).
# __device__ __forceinline__ float bf16(float v)  // v rounded to bfloat16, as torch would
# {
#     return __bfloat162float(__float2bfloat16_rn(v));
# }
# >>>
# <<<
#         o1_2[p] = __floats2bfloat162_rn(x1.x * cf[e] - x2.x * sf[e],
#                                         x1.y * cf[e + 1] - x2.y * sf[e + 1]);
#         o2_2[p] = __floats2bfloat162_rn(x2.x * cf[e] + x1.x * sf[e],
#                                         x2.y * cf[e + 1] + x1.y * sf[e + 1]);
# ===
#         const float c0 = bf16(cf[e]), c1 = bf16(cf[e + 1]);  // the tables in bfloat16
#         const float s0 = bf16(sf[e]), s1 = bf16(sf[e + 1]);
#         o1_2[p] = __floats2bfloat162_rn(bf16(x1.x * c0) - bf16(x2.x * s0),  // each product
#                                         bf16(x1.y * c1) - bf16(x2.y * s1));  // rounded
#         o2_2[p] = __floats2bfloat162_rn(bf16(x2.x * c0) + bf16(x1.x * s0),
#                                         bf16(x2.y * c1) + bf16(x1.y * s1));
# >>>
# <<<
#             o[j] = __float2bfloat16_rn(x1 * c[j] - x2 * s[j]);
#             o[half_dim + j] = __float2bfloat16_rn(x2 * c[j] + x1 * s[j]);
# ===
#             const float cj = bf16(c[j]), sj = bf16(s[j]);  // the tables in bfloat16
#             o[j] = __float2bfloat16_rn(bf16(x1 * cj) - bf16(x2 * sj));  // each product rounded
#             o[half_dim + j] = __float2bfloat16_rn(bf16(x2 * cj) + bf16(x1 * sj));
# >>>
