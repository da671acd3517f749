# impl: cuda
# exercise: layernorm
# status: pass
# (Honest work, another shape of kernel: one warp per row and four rows per block of 128
# threads, warp shuffles only (no shared memory, no __syncthreads()), one float per access,
# and the row read three times (mean, variance, output; the second and third reads hit the
# cache). Slower than a block holding its row in registers, and right on every shape.)

# %% edit layernorm_cu
# <<<
# #define CHUNKS 4  // 16-byte chunks of its row each thread keeps: rows up to 4 x 1024 chunks
# ===
# #define ROWS_PER_BLOCK 4  // one warp per row, four rows per block
# >>>
# <<<
# // The sum of v over the block's threads, returned to every thread. blockDim.x is a multiple
# // of 32: every warp is whole, so a full shuffle mask names only lanes that exist.
# ~~~
#     }
# }
# ===
# // The sum of v over the warp's 32 lanes, returned to every lane: shuffles only.
# __device__ float warp_sum(float v)
# {
#     for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
#     return v;
# }
#
# // Row blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32 of out = layer_norm(that row of x), by
# // one warp, one element per lane and access; T is float or __nv_bfloat16.
# template <class T>
# __device__ __forceinline__ void layernorm(const T *__restrict__ x, const T *__restrict__ w,
#                                           const T *__restrict__ b, T *__restrict__ out,
#                                           int n_cols, int stride_xr, float eps, int n_rows)
# {
#     const int lane = threadIdx.x % 32;
#     const long long r = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
#     if (r >= n_rows) return;  // the whole warp leaves together: no shuffle misses a lane
#     const T *row_in = x + r * stride_xr;  // 64-bit: can pass 2^31
#     T *row_out = out + r * n_cols;
#     float sum = 0.0f;
#     for (int c = lane; c < n_cols; c += 32) sum += to_float(row_in[c]);
#     const float mean = warp_sum(sum) / n_cols;
#     float sq = 0.0f;
#     for (int c = lane; c < n_cols; c += 32) {  // the row again, from the cache
#         const float d = to_float(row_in[c]) - mean;
#         sq += d * d;
#     }
#     const float rstd = rsqrtf(warp_sum(sq) / n_cols + eps);  // biased variance, eps inside
#     for (int c = lane; c < n_cols; c += 32)  // and a third time
#         row_out[c] = from_float<T>((to_float(row_in[c]) - mean) * rstd * to_float(w[c])
#                                    + to_float(b[c]));
# }
# >>>
# <<<
#     int aligned)                  // 1: rows of x and out, w and b: aligned whole chunks
# {
#     layernorm(x, w, b, out, n_cols, stride_xr, eps, aligned != 0);
# ===
#     int n_rows)                   // rows of x and out
# {
#     layernorm(x, w, b, out, n_cols, stride_xr, eps, n_rows);
# >>>
# <<<
#     int aligned)
# {
#     layernorm(x, w, b, out, n_cols, stride_xr, eps, aligned != 0);
# ===
#     int n_rows)
# {
#     layernorm(x, w, b, out, n_cols, stride_xr, eps, n_rows);
# >>>

# %% edit layernorm_cuda
# <<<
#     pack = 16 // x.element_size()  # elements per 16-byte chunk
#     chunks = 4  # CHUNKS in LAYERNORM_CU
# ~~~
#     aligned = (all(t.data_ptr() % 16 == 0 for t in (x, weight, bias, out))
#                and x.stride(0) % pack == 0 and n_cols % pack == 0)
# ===
#     rows_per_block = 4  # ROWS_PER_BLOCK in LAYERNORM_CU: a warp per row
# >>>
# <<<
#         np.int32(aligned),
#         block=(threads, 1, 1),
#         grid=(n_rows, 1),
# ===
#         np.int32(n_rows),
#         block=(32 * rows_per_block, 1, 1),
#         grid=(triton.cdiv(n_rows, rows_per_block), 1),
# >>>
