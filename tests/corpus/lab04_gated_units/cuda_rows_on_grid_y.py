# impl: cuda
# exercise: swiglu_packed
# device: gpu
# status: exception
# reason: invalid configuration argument: grid dimension y
# reason: [n_rows=65537, two_h=48, h=24, bfloat16]
# (Rows on the grid's y: right on every CPU shape, refused by CUDA at 65537 rows, the gpu
# suite's token count; y and z stop at 65535, x at 2^31 - 1.)

# %% edit swiglu_packed_cu
# <<<
#     const __nv_bfloat16 *gate = x + (size_t)blockIdx.x * stride_xr;  // 64-bit row offsets
#     const __nv_bfloat16 *up = gate + h;
#     __nv_bfloat16 *o = out + (size_t)blockIdx.x * h;
#     const int c = (blockIdx.y * blockDim.x + threadIdx.x) * PACK;  // first of 8 columns
# ===
#     const __nv_bfloat16 *gate = x + (size_t)blockIdx.y * stride_xr;  // the row on y
#     const __nv_bfloat16 *up = gate + h;
#     __nv_bfloat16 *o = out + (size_t)blockIdx.y * h;
#     const int c = (blockIdx.x * blockDim.x + threadIdx.x) * PACK;  // first of 8 columns
# >>>

# %% edit swiglu_packed_cuda
# <<<
#         grid=(rows, column_blocks),
# ===
#         grid=(column_blocks, rows),  # the rows on y
# >>>
