# exercise: matrix_add
# impl: cuda
# status: fail
# reason: [n_rows=127, n_cols=129]
# reason: still hold the fill value
# (The kernel takes its column tile from blockIdx.y and its row tile from blockIdx.x, the
# launcher sizes the grid's x for the columns: the blocks cover a region of the wrong shape,
# bounds-checked, so nothing is written outside out but a strip of it never is. Unnoticed
# on 1 x 1 and 3 x 7.)

# %% edit matrix_add_cu
# <<<
#     const int col = blockIdx.x * TILE + threadIdx.x;  // coalesced along out's rows
# ===
#     const int col = blockIdx.y * TILE + threadIdx.x;  // swapped: y counts the row tiles
# >>>
# <<<
#     const long long row0 = blockIdx.y * TILE + threadIdx.y;  // 64-bit offsets below
# ===
#     const long long row0 = blockIdx.x * TILE + threadIdx.y;  // 64-bit offsets below
# >>>
