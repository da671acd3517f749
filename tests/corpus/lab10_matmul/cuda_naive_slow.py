# impl: cuda
# exercise: matmul_fp32
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (the naive matmul, the first step of the notebook's staircase: one element of c per thread,
#  its row of a and column of b read from global memory for every multiply-add, no shared
#  memory. The caches catch part of the re-reads, not enough: correct everywhere, 64-bit
#  offsets and grid limits included (a 1-D grid of m n threads), and far below the
#  register-tiled reference.)

# %% edit matmul_fp32_cu
# <<<
# #define BM 128  // rows of c per block
# #define BN 128  // columns of c per block
# ~~~
#         }
#     }
# ===
# __global__ void matmul_fp32_kernel(const float *__restrict__ a, const float *__restrict__ b,
#                                    float *__restrict__ c, int m, int n, int k, int stride_am,
#                                    int stride_bk)
# {
#     // One element of c per thread, threadIdx.x along a row of c: a warp reads 32 neighbouring
#     // floats of a row of b per step, and one float of a (the same for the whole warp).
#     const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
#     if (i >= (long long)m * n) return;
#     const long long row = i / n, col = i % n;
#     float acc = 0.0f;
#     for (int kk = 0; kk < k; ++kk)
#         acc += a[row * stride_am + kk] * b[(long long)kk * stride_bk + col];
#     c[i] = acc;
# >>>

# %% edit matmul_fp32_cuda
# <<<
#     bm, bn = 128, 128  # BM and BN in MATMUL_FP32_CU
#     tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
#     assert tiles < 2**31, f"{tiles} tiles: gridDim.x <= 2^31 - 1"
# ===
#     tiles = triton.cdiv(m * n, 256)  # one thread per element of c
# >>>
