# impl: cuda
# exercise: dequant_int8
# device: gpu
# status: exception
# reason: invalid configuration argument: grid dimension y
# reason: [out_features=70001, in_features=24, bfloat16]
# (Rows on the grid's y, column blocks on x: right on every CPU shape, refused by CUDA at the
# gpu suite's 70001 rows; a grid's y and z stop at 65535, its x at 2^31 - 1.)

# %% edit dequant_int8_cu
# <<<
#     const size_t row = blockIdx.x;
# ===
#     const size_t row = blockIdx.y;
# >>>
# <<<
#     const int c = (blockIdx.y * blockDim.x + threadIdx.x) * PACK;  // first of 8 columns
# ===
#     const int c = (blockIdx.x * blockDim.x + threadIdx.x) * PACK;  // first of 8 columns
# >>>

# %% edit dequant_int8_cuda
# <<<
#         grid=(rows, column_blocks),
# ===
#         grid=(column_blocks, rows),
# >>>
