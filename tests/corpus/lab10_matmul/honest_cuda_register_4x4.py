# impl: cuda
# exercise: matmul_fp32
# status: pass
# (honest work: another register tiling than the notebook's, in its signature, tile numbering
#  and launcher. 64 x 64 tiles, 16 deep, one shared buffer each, one float per global load;
#  each of 256 threads a 4 x 4 piece of c with rows and columns 16 apart (a warp's shared
#  reads are then consecutive words), a's tile padded by one column, every row offset 64-bit,
#  the loops not unrolled by hand. Right everywhere.)

# %% edit matmul_fp32_cu
# <<<
# #define BM 128  // rows of c per block
# #define BN 128  // columns of c per block
# ~~~
# // 2 blocks per SM: at most 65536 / (2 x 256) = 128 registers per thread (64 accumulators, 16
# // operands, 8 for the next K tile in flight), so that one block's barrier is the other's work.
# ===
# #define BM 64   // rows of c per block
# #define BN 64   // columns of c per block
# #define BK 16   // depth of one K tile
# #define THREADS 256  // 16 x 16 threads, each a 4 x 4 piece of c
# #define GROUP_M 16   // tile rows per group of the numbering
#
# // Each thread's 4 x 4 piece: rows ty + 16 i, columns tx + 16 j (strided, so the shared reads
# // of a warp are consecutive floats: no float4, no bank conflicts either).
# >>>
# <<<
#     // Two buffers of each piece: K tile t is multiplied from one while K tile t + 1, already
#     // loaded into registers, waits to be stored into the other. a's piece transposed
#     // (as[buf][kk][i] = a[row0 + i][k0 + kk]), rows 4 floats longer (the transposing writes of
#     // a warp spread over all 32 banks); b's piece as it is. 2 x 8.2 KiB.
#     __shared__ __align__(16) float as[2][BK][BM + 4];
#     __shared__ __align__(16) float bs[2][BK][BN];
# ===
#     __shared__ float as[BM][BK + 1];  // a's tile, padded by one column
#     __shared__ float bs[BK][BN];
# >>>
# <<<
#     // float4 global accesses where every float4 of a row is wholly inside the matrix or wholly
#     // outside it, and 16-byte aligned: k, n and both strides multiples of 4, a, b, c on 16-byte
# ~~~
#         }
#     }
# ===
#     float acc[4][4] = {};
#     for (int k0 = 0; k0 < k; k0 += BK) {
#         for (int e = t; e < BM * BK; e += THREADS) {
#             const long long row = row0 + e / BK;  // 64-bit: row * stride_am
#             const int col = k0 + e % BK;
#             as[e / BK][e % BK] = row < m && col < k ? a[row * stride_am + col] : 0.0f;
#         }
#         for (int e = t; e < BK * BN; e += THREADS) {
#             const long long row = k0 + e / BN;
#             const int col = col0 + e % BN;
#             bs[e / BN][e % BN] = row < k && col < n ? b[row * stride_bk + col] : 0.0f;
#         }
#         __syncthreads();  // both tiles are complete before any thread reads them
#         for (int kk = 0; kk < BK; ++kk) {
#             float av[4], bv[4];
#             for (int i = 0; i < 4; ++i) av[i] = as[ty + 16 * i][kk];
#             for (int j = 0; j < 4; ++j) bv[j] = bs[kk][tx + 16 * j];
#             for (int i = 0; i < 4; ++i)
#                 for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
#         }
#         __syncthreads();  // every thread is done with the tiles before they are refilled
#     }
#     for (int i = 0; i < 4; ++i)
#         for (int j = 0; j < 4; ++j) {
#             const long long row = row0 + ty + 16 * i;
#             const int col = col0 + tx + 16 * j;
#             if (row < m && col < n) c[row * n + col] = acc[i][j];  // c's edges
#         }
# >>>

# %% edit matmul_fp32_cuda
# <<<
#     bm, bn = 128, 128  # BM and BN in MATMUL_FP32_CU
# ===
#     bm, bn = 64, 64  # BM and BN in MATMUL_FP32_CU
# >>>
