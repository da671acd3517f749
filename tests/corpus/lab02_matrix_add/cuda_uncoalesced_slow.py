# exercise: matrix_add
# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct everywhere, but threadIdx.x runs along the rows — the 32 threads of a warp touch 32
# different rows, 32 sectors of 32 bytes for 128 useful bytes, on every load and store.)

# %% edit matrix_add_cu
# <<<
#     const int col = blockIdx.x * TILE + threadIdx.x;  // coalesced along out's rows
#     if (col >= n_cols) return;
# ~~~
#         op += (long long)BLOCK_ROWS * n_cols;
#     }
# ===
#     const long long row = blockIdx.y * TILE + threadIdx.x;  // along a column: uncoalesced
#     if (row >= n_rows) return;
#     const int col0 = blockIdx.x * TILE + threadIdx.y;  // this thread's first column
# #pragma unroll
#     for (int k = 0; k < TILE; k += BLOCK_ROWS) {  // BLOCK_ROWS columns to the right
#         const long long col = col0 + k;
#         if (col < n_cols) {
#             out[row * n_cols + col] = x[row * stride_xm + col * stride_xn] +
#                                       y[row * stride_ym + col * stride_yn];
#         }
#     }
# >>>
