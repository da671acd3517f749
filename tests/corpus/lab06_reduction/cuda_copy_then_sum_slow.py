# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (correct but slow: to make float4 loads legal whatever x's alignment, the launcher first
#  copies x into a fresh (16-byte aligned) scratch buffer with a copy kernel, then sums the
#  copy: read n, write n, read n floats, three times the minimum traffic)

# %% edit vector_sum_cu
# <<<
# // The 32 lanes' values combined with shuffles (registers only, no barrier): the warp's sum
# // ends up in lane 0.
# ~~~
#         v += __shfl_down_sync(0xffffffffu, v, offset);  // v of the lane `offset` above
#     }
# ===
# __global__ void copy_kernel(const float *x, float *y, int n)
# {
#     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
#         y[i] = x[i];
# }
#
# __device__ float warp_reduce_sum(float v)
# {
#     for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
# >>>
# <<<
# // The block's values combined: each warp with warp_reduce_sum, then the warps' sums through
# // shared memory by the first warp. The block's sum ends up in thread 0. Every thread of the
# ~~~
# {
#     __shared__ float per_warp[32];  // one sum per warp: at most 1024 / 32 warps
# ===
# __device__ float block_reduce_sum(float v)
# {
#     __shared__ float per_warp[32];
# >>>
# <<<
#     __syncthreads();  // every warp's sum is in shared memory before the first warp reads them
#     if (warp == 0) {
# ~~~
#         v = warp_reduce_sum(v);
#     }
# ===
#     __syncthreads();
#     if (warp == 0) v = warp_reduce_sum(lane < (int)blockDim.x / 32 ? per_warp[lane] : 0.0f);
# >>>
# <<<
# __global__ void vector_sum_kernel(const float *__restrict__ x,  // input: n floats, any alignment
#                            float *__restrict__ out,      // output: one float, zeroed first
# ~~~
#     v = block_reduce_sum(v);
#     // 4. Grid: one atomic per block.
# ===
# // y is 16-byte aligned: float4 loads from its start, then the n % 4 floats left.
# __global__ void vector_sum_kernel(const float *y, float *out, int n)
# {
#     const int i = blockIdx.x * blockDim.x + threadIdx.x;
#     const float4 *y4 = reinterpret_cast<const float4 *>(y);
#     float v = i < n % 4 ? y[n / 4 * 4 + i] : 0.0f;
#     for (int k = i; k < n / 4; k += gridDim.x * blockDim.x) {
#         const float4 q = y4[k];
#         v += (q.x + q.y) + (q.z + q.w);
#     }
#     v = block_reduce_sum(v);
# >>>

# %% edit vector_sum_cuda
# <<<
# # Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")
# ~~~
#         grid=(blocks, 1),
#     )
# ===
# module = SourceModule(VECTOR_SUM_CU)
# copy_kernel_cu = module.get_function("copy_kernel")
# vector_sum_kernel_cu = module.get_function("vector_sum_kernel")
#
#
# def vector_sum_cuda(x, out):
#     n = x.numel()
#     y = torch.empty_like(x)  # a fresh allocation: 16-byte aligned
#     blocks = max(1, min(triton.cdiv(n, 1024), 1024))
#     copy_kernel_cu(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.int32(n),
#                    block=(256, 1, 1), grid=(blocks, 1))
#     out.zero_()
#     vector_sum_kernel_cu(np.uintp(y.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
#                   block=(256, 1, 1), grid=(blocks, 1))
# >>>
