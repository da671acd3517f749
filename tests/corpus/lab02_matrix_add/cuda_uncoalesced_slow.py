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
# #define TILE 32       // a block owns a TILE x TILE tile of the matrix
# #define BLOCK_ROWS 4  // ... with TILE x BLOCK_ROWS threads: TILE / BLOCK_ROWS rows per thread
# ~~~
#         yp += (long long)BLOCK_ROWS * stride_ym;
#         op += (long long)BLOCK_ROWS * n_cols;
# ===
# __global__ void matrix_add_kernel(const float *x, const float *y, float *out, int n_rows,
#                                   int n_cols, int stride_xm, int stride_xn, int stride_ym,
#                                   int stride_yn)
# {
#     const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // along a column
#     const long long col = (long long)blockIdx.y * blockDim.y + threadIdx.y;
#     if (row < n_rows && col < n_cols) {
#         out[row * n_cols + col] = x[row * stride_xm + col * stride_xn] +
#                                   y[row * stride_ym + col * stride_yn];
# >>>

# %% edit matrix_add_cuda
# <<<
# def matrix_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
#     """out = x + y with matrix_add_kernel_cu; x and y any strides, out contiguous.
# ~~~
#         block=(tile, block_rows, 1),
#         grid=grid,
# ===
# def matrix_add_cuda(x, y, out):
#     n_rows, n_cols = x.shape
#     matrix_add_kernel_cu(
#         np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
#         np.int32(n_rows), np.int32(n_cols), *(np.int32(s) for s in (*x.stride(), *y.stride())),
#         block=(32, 8, 1), grid=((n_rows + 31) // 32, (n_cols + 7) // 8),
# >>>
