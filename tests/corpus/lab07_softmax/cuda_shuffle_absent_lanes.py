# impl: cuda
# status: exception
# reason: __shfl_xor_sync at kernel.cu line 7
# reason: which do not exist
# status-gpu: pass
# (a warp-shuffle reduction with a full mask, launched with one thread per column up to 256:
#  a row of 100 columns gives a block of 100 threads, whose last warp has 4 lanes; the mask
#  names 28 lanes that do not exist. Undefined behaviour, which the CPU backend refuses. On an
#  H200 it computes the right result and compute-sanitizer's synccheck reports nothing (lanes
#  past the block count as inactive there): the GPU grades it correct.)

# %% edit softmax_cu
# <<<
# #define COLS_PER_THREAD 16  // rows up to 16 x 1024 = 16384 columns stay in registers
#
# // One value per thread in, the block's max (or sum) out, in every thread. Each warp first
# // combines its 32 values with shuffles (registers only, no barrier); then one value per warp
# // goes through shared memory and the first warp's lanes combine those.
# ===
# #define FULL 0xffffffffu
#
# __device__ float warp_reduce(float v, bool is_max)
# {
#     for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
#         float other = __shfl_xor_sync(FULL, v, lane_mask);
#         v = is_max ? fmaxf(v, other) : v + other;
#     }
#     return v;
# }
#
# >>>
# <<<
#     const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#     for (int offset = 16; offset > 0; offset /= 2) {
# ~~~
#                                int n_cols,                   // columns per row
#                                int stride_xr)                // elements between rows of x
# ===
#     v = warp_reduce(v, is_max);
#     if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = v;
#     __syncthreads();
#     int n_warps = (blockDim.x + 31) / 32;
#     float r = is_max ? -INFINITY : 0.0f;
#     for (int w = 0; w < n_warps; w++) r = is_max ? fmaxf(r, per_warp[w]) : r + per_warp[w];
#     __syncthreads();
#     return r;
# }
#
# __global__ void softmax_kernel(const float *x, float *out, int n_cols, int stride_xr)
# >>>
# <<<
#     float v[COLS_PER_THREAD];  // this thread's columns: read once, kept in registers
#     // 16 bytes at a time when both rows allow it: the same answer for every thread of the
#     // block, so the branch never splits a warp.
#     const bool vec = n_cols % 4 == 0 && (size_t)row_in % 16 == 0 && (size_t)row_out % 16 == 0;
#     if (vec) {  // thread t owns float4s t, t + blockDim.x, ...: 4 columns each
#         const float4 *in4 = reinterpret_cast<const float4 *>(row_in);
# #pragma unroll
#         for (int k = 0; k < COLS_PER_THREAD / 4; ++k) {
#             int c = threadIdx.x + k * blockDim.x;  // neighbouring threads, neighbouring float4s
#             float4 f = c < n_cols / 4 ? in4[c]  // the sentinel cannot win the max
#                                       : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
#             v[4 * k] = f.x; v[4 * k + 1] = f.y; v[4 * k + 2] = f.z; v[4 * k + 3] = f.w;
#         }
#     } else {  // any row: one float at a time
# #pragma unroll
#         for (int k = 0; k < COLS_PER_THREAD; ++k) {
#             int c = threadIdx.x + k * blockDim.x;  // neighbouring threads, neighbouring columns
#             v[k] = c < n_cols ? row_in[c] : -INFINITY;
#         }
#     }
#     float m = -INFINITY;
# #pragma unroll
#     for (int k = 0; k < COLS_PER_THREAD; ++k) m = fmaxf(m, v[k]);
#     m = block_reduce(m, true);
#     float s = 0.0f;
# #pragma unroll
#     for (int k = 0; k < COLS_PER_THREAD; ++k) {
#         v[k] = __expf(v[k] - m);  // the padding adds exp(-inf) = 0
#         s += v[k];
#     }
#     const float inv_s = 1.0f / block_reduce(s, false);  // one division per thread
#     if (vec) {  // the columns this thread read, written back the same way
#         float4 *out4 = reinterpret_cast<float4 *>(row_out);
# #pragma unroll
#         for (int k = 0; k < COLS_PER_THREAD / 4; ++k) {
#             int c = threadIdx.x + k * blockDim.x;
#             if (c < n_cols / 4)
#                 out4[c] = make_float4(v[4 * k] * inv_s, v[4 * k + 1] * inv_s,
#                                       v[4 * k + 2] * inv_s, v[4 * k + 3] * inv_s);
#         }
#     } else {
# #pragma unroll
#         for (int k = 0; k < COLS_PER_THREAD; ++k) {
#             int c = threadIdx.x + k * blockDim.x;
#             if (c < n_cols) row_out[c] = v[k] * inv_s;
#         }
#     }
# ===
#     float m = -INFINITY;
#     for (int c = threadIdx.x; c < n_cols; c += blockDim.x) m = fmaxf(m, row_in[c]);
#     m = block_reduce(m, true);
#     float s = 0.0f;
#     for (int c = threadIdx.x; c < n_cols; c += blockDim.x) s += expf(row_in[c] - m);
#     s = block_reduce(s, false);
#     for (int c = threadIdx.x; c < n_cols; c += blockDim.x) row_out[c] = expf(row_in[c] - m) / s;
# >>>

# %% edit softmax_cuda
# <<<
# # Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# ===
# >>>
# <<<
# def softmax_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
#     """out = softmax(x, dim=1), one block per row of up to 16 x 1024 columns."""
# ~~~
#         grid=(n_rows, 1),
#     )
# ===
# def softmax_cuda(x, out):
#     n_rows, n_cols = x.shape
#     threads = min(n_cols, 256)  # one thread per column, up to 256
#     softmax_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_cols),
#                       np.int32(x.stride(0)), block=(threads, 1, 1), grid=(n_rows, 1))
# >>>
