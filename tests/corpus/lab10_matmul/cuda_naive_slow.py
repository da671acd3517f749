# impl: cuda
# exercise: matmul_fp32
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (the naive matmul, the first step of the notebook's staircase: the notebook's signature and
#  launcher, one element of c per thread, its row of a and column of b read from global
#  memory for every multiply-add, no shared memory. The caches catch part of the re-reads, not
#  enough: correct everywhere, 64-bit offsets and grid limits included (a 1-D grid of m n
#  threads), and far below the register-tiled reference.)

# %% edit matmul_fp32_cu
# <<<
# #define BM 128  // rows of c per block
# #define BN 128  // columns of c per block
# ~~~
# // 2 blocks per SM: at most 65536 / (2 x 256) = 128 registers per thread (64 accumulators, 16
# // operands, 8 for the next K tile in flight), so that one block's barrier is the other's work.
# ===
# #define THREADS 256  // threads per block, each one element of c
#
# >>>
# <<<
#     // Two buffers of each piece: K tile t is multiplied from one while K tile t + 1, already
#     // loaded into registers, waits to be stored into the other. a's piece transposed
# ~~~
#         }
#     }
# ===
#     // One element of c per thread, threadIdx.x along a row of c: a warp reads 32 neighbouring
#     // floats of a row of b per step, and one float of a (the same for the whole warp). No
#     // shared memory: every multiply-add reads its operands from global memory.
#     const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
#     if (i >= (long long)m * n) return;
#     const long long row = i / n, col = i % n;  // 64-bit: row * stride_am
#     float acc = 0.0f;
#     for (int kk = 0; kk < k; ++kk)
#         acc += a[row * stride_am + kk] * b[(long long)kk * stride_bk + col];
#     c[i] = acc;
# >>>

# %% edit matmul_fp32_cuda
# <<<
#     bm, bn = 128, 128  # BM and BN in MATMUL_FP32_CU
#     tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
# ===
#     tiles = triton.cdiv(m * n, 256)  # one thread per element of c
# >>>
