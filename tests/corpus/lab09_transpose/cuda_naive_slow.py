# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (The naive transpose, the first step of the notebook's staircase: one element per thread,
#  no shared memory. threadIdx.x runs along a row of x, so a warp's load is 128 contiguous
#  bytes, and its store is 32 floats n_rows apart in out: 32 sectors of 32 bytes for 128
#  useful bytes. Correct everywhere, 64-bit offsets included.)

# %% edit transpose_cu
# <<<
# #define TILE 32       // a block transposes a TILE x TILE tile of x
# #define BLOCK_ROWS 4  // ... with TILE x BLOCK_ROWS threads: TILE / BLOCK_ROWS elements each
# ~~~
#             out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
#     }
# ===
# __global__ void transpose_kernel(const float *x, float *out, int n_rows, int n_cols,
#                                  int stride_xm)
# {
#     const long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // along a row
#     const long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
#     if (row < n_rows && col < n_cols) out[col * n_rows + row] = x[row * stride_xm + col];
# >>>

# %% edit transpose_cuda
# <<<
# # Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# ===
# >>>
# <<<
# def transpose_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
#     """out = x.T with transpose_kernel_cu, one block of TILE x BLOCK_ROWS threads per tile.
# ~~~
#         block=(tile, block_rows, 1),
#         grid=grid,
# ===
# def transpose_cuda(x, out):
#     n_rows, n_cols = x.shape
#     transpose_kernel_cu(
#         np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_rows), np.int32(n_cols),
#         np.int32(x.stride(0)), block=(32, 8, 1), grid=((n_cols + 31) // 32, (n_rows + 7) // 8),
# >>>
