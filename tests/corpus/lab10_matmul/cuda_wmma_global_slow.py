# impl: cuda
# exercise: matmul_fp16
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (the notebook's Hint 1: WMMA with each fragment loaded straight from global memory, one warp
#  per 16 x 16 tile of c. Every fragment of a is read by each of the n / 16 warps that need it,
#  every fragment of b by m / 16: correct everywhere (64-bit offsets, a 1-D grid), and far
#  below the shared-memory reference.)

# %% edit matmul_fp16_cu
# <<<
# #include <cuda_pipeline.h>
# ===
# >>>
# <<<
# // Two floats rounded to a pair of halves, as the 32 bits of a uint4's component.
# __device__ __forceinline__ unsigned pack(float x, float y)
# ~~~
#         }
#     }
# ===
# // One warp per 16 x 16 tile of c (4 warps per block, a 16 x 64 strip), fragments loaded
# // straight from global memory: no shared memory, no reuse beyond what the caches keep.
# extern "C" __global__ void matmul_fp16_kernel(const __half *__restrict__ a,
#                                               const __half *__restrict__ b,
#                                               __half *__restrict__ c, int m, int n, int k,
#                                               int stride_am, int stride_bk)
# {
#     __shared__ __align__(32) float scratch[4][16 * 16];
#     const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#     const int strips_n = (n + 63) / 64;
#     const long long row = (long long)(blockIdx.x / strips_n) * 16;
#     const int col = blockIdx.x % strips_n * 64 + warp * 16;
#     if (col >= n) return;  // the whole warp: its tile is past c
#     wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
#     wmma::fill_fragment(acc, 0.0f);
#     for (int k0 = 0; k0 < k; k0 += 16) {
#         wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
#         wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
#         wmma::load_matrix_sync(fa, a + row * stride_am + k0, stride_am);
#         wmma::load_matrix_sync(fb, b + (long long)k0 * stride_bk + col, stride_bk);
#         wmma::mma_sync(acc, fa, fb, acc);
#     }
#     wmma::store_matrix_sync(scratch[warp], acc, 16, wmma::mem_row_major);
#     __syncwarp();
#     for (int e = lane; e < 256; e += 32)
#         c[(row + e / 16) * n + col + e % 16] = __float2half_rn(scratch[warp][e]);
# >>>

# %% edit matmul_fp16_cuda
# <<<
#     per 256 x 128 tile of c.
#
#     Kernel arguments as in matmul_fp32_cuda; block=(256, 1, 1), grid=(tiles, 1), shared= the
#     bytes of the kernel's dynamic shared memory.
# ===
#     per 128 x 128 tile of c.
#
#     Kernel arguments as in matmul_fp32_cuda; block=(128, 1, 1), grid=(tiles, 1).
# >>>
# <<<
#     bm, bn, bk, pad, stages = 256, 128, 32, 8, 3  # BM, BN, BK, PAD, STAGES in MATMUL_FP16_CU
#     tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
#     # bytes: STAGES buffers of as and bs, halves
#     smem = stages * (bm * (bk + pad) + bk * (bn + pad)) * 2
# ===
#     tiles = (m // 16) * triton.cdiv(n, 64)  # a block per 16 x 64 strip of c
# >>>
# <<<
#         block=(256, 1, 1),
#         grid=(tiles, 1),
#         shared=smem,  # 87552 bytes, over 48 KiB: SourceModule's launch makes the opt-in
# ===
#         block=(128, 1, 1),
#         grid=(tiles, 1),
# >>>
