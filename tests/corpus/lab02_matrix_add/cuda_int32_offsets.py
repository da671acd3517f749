# exercise: matrix_copy
# impl: cuda
# device: gpu
# status: exception
# reason: [n_rows=16, n_cols=1000, x rows padded by 143165000]
# reason-any: illegal memory access | illegal address
# (Right on every CPU shape and on the smaller GPU ones. On the view whose rows are 143166000
# elements apart, row 15's offset 2147490000 + col, computed in 32 bits and kept in an int,
# becomes negative — 8 GiB before x, where nothing is mapped. The index is computed in unsigned
# arithmetic (the row is unsigned, as blockIdx is) and narrowed to int, as students write it —
# a wrap the compiler must keep (with int factors the overflow is undefined, and nvcc may widen
# the arithmetic and hide the bug). The CPU backend, given that view directly, reports "an
# illegal memory access ... read"; the CPU shapes are too small to show it.)

# %% edit matrix_copy_cu
# <<<
#     // 64-bit: row * stride_xm passes 2^31 - 1 on a matrix of more than 2^31 elements.
#     const float *xp = x + (long long)row0 * stride_xm + col;
# ~~~
#         op += (long long)BLOCK_ROWS * n_cols;
#     }
# ===
# #pragma unroll
#     for (int k = 0; k < TILE; k += BLOCK_ROWS) {  // a constant count: the loads overlap
#         const unsigned row = row0 + k;
#         if (row < n_rows) {  // the last row of tiles runs past the matrix
#             const int from = row * stride_xm + col, to = row * n_cols + col;  // 32-bit offsets
#             out[to] = x[from];
#         }
#     }
# >>>
