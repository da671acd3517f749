# impl: cuda
# exercise: rope
# status: fail
# reason: out-of-bounds write
# reason: [tokens=1, heads=1, head_dim=2, half_dim=1, bfloat16]
# (The results computed in float and never converted: the kernel declares out as float *, as
# the arithmetic is, and stores 4-byte floats into the bfloat16 output. Element i lands on
# bytes 4i..4i+3: the values are garbage and the second half of the writes runs past the
# output's end, into the guard after it, from the first case on.)

# %% edit rope_cu
# <<<
# __device__ void rotate_heads(const __nv_bfloat16 *x, __nv_bfloat16 *out, int n_heads,
# ===
# __device__ void rotate_heads(const __nv_bfloat16 *x, float *out, int n_heads,
# >>>
# <<<
#             const int j = (i - h * chunks) * 8;  // the chunk's first column
#             const __nv_bfloat16 *row = x + (long long)h * stride_xh;
#             __nv_bfloat16 *o = out + (long long)h * head_dim;
# ===
#             const int j = (i - h * chunks) * 8;  // the chunk's first column
#             const __nv_bfloat16 *row = x + (long long)h * stride_xh;
#             float *o = out + (long long)h * head_dim;
# >>>
# <<<
#             const int j = i - h * half_dim;  // the pair (x[j], x[j + half_dim])
#             const __nv_bfloat16 *row = x + (long long)h * stride_xh;
#             __nv_bfloat16 *o = out + (long long)h * head_dim;
# ===
#             const int j = i - h * half_dim;  // the pair (x[j], x[j + half_dim])
#             const __nv_bfloat16 *row = x + (long long)h * stride_xh;
#             float *o = out + (long long)h * head_dim;
# >>>
# <<<
#             o[j] = __float2bfloat16_rn(x1 * c[j] - x2 * s[j]);
#             o[half_dim + j] = __float2bfloat16_rn(x2 * c[j] + x1 * s[j]);
# ===
#             o[j] = x1 * c[j] - x2 * s[j];  // float, never converted
#             o[half_dim + j] = x2 * c[j] + x1 * s[j];
# >>>
# <<<
#     __nv_bfloat16 *__restrict__ out,      // [tokens, heads, 2 * half_dim], contiguous
# ===
#     float *__restrict__ out,              // the output is bfloat16
# >>>
