# impl: cuda
# device: gpu
# status: exception
# reason: [n_rows=16, n_cols=1000, x rows padded by 143165000]
# reason-any: illegal memory access | illegal address
# (The notebook's tile with its offsets kept in an int. Right on every CPU shape; on the GPU
#  suite's first case, the view whose rows are 143166000 elements apart, row 15's offset
#  2147490000 + col does not fit: it is computed in unsigned arithmetic (blockIdx and
#  threadIdx are unsigned, as students' index expressions usually are) and narrowed to int,
#  a negative index 8 GiB before x, where nothing is mapped. (With int factors the overflow
#  would be undefined behaviour, and nvcc may widen the arithmetic and hide the bug.) The CPU
#  shapes are too small to show it.)

# %% edit transpose_cu
# <<<
#     const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;  // the tile's corner in x
# ===
#     const unsigned row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;  // the tile's corner
# >>>
# <<<
#     const int col = col0 + threadIdx.x;
# #pragma unroll
# ~~~
#             tile[threadIdx.y + k][threadIdx.x] = x[(long long)row * stride_xm + col];
#     }
# ===
#     const unsigned col = col0 + threadIdx.x;
# #pragma unroll
#     for (int k = 0; k < TILE; k += BLOCK_ROWS) {
#         const unsigned row = row0 + threadIdx.y + k;
#         // The last row and column of tiles run past the matrix.
#         if (row < n_rows && col < n_cols) {
#             const int from = row * stride_xm + col;  // 32-bit offset
#             tile[threadIdx.y + k][threadIdx.x] = x[from];
#         }
#     }
# >>>
# <<<
#     const int out_col = row0 + threadIdx.x;  // a row of x
# #pragma unroll
# ~~~
#             out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
#     }
# ===
#     const unsigned out_col = row0 + threadIdx.x;  // a row of x
# #pragma unroll
#     for (int k = 0; k < TILE; k += BLOCK_ROWS) {
#         const unsigned out_row = col0 + threadIdx.y + k;  // a column of x
#         // out is n_cols x n_rows: its own bounds, not x's.
#         if (out_row < n_cols && out_col < n_rows) {
#             const int to = out_row * n_rows + out_col;  // 32-bit offset
#             out[to] = tile[threadIdx.x][threadIdx.y + k];
#         }
#     }
# >>>
