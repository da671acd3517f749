# ruff: noqa: E501 (a quoted line of its own kernel)
# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: each 64-thread block stages its inputs in a __shared__ tile sized for
#  "any block" (2 x 6144 floats, 48 KiB). Shared memory per SM then holds four such blocks:
#  eight warps of the 64 an SM can run, too few loads in flight to keep DRAM busy. The
#  profile's low-occupancy control.)

# %% edit vector_add_cu
# <<<
# #include <cuda_fp16.h>  // __half
# #include <cuda_bf16.h>  // __nv_bfloat16
#
# // The arithmetic is done in float whatever the storage type: to_float widens one element,
# // from_float<T> rounds a float back to T (to nearest even, as torch does).
# ===
# #include <cuda_fp16.h>
# #include <cuda_bf16.h>
#
# >>>
# <<<
#
# template <class T> __device__ __forceinline__ T from_float(float v);
# ~~~
#                                                  const float *__restrict__ y,
#                                                  float *__restrict__ out, int n)
# ===
# __device__ __forceinline__ void store(float *p, float v) { *p = v; }
# __device__ __forceinline__ void store(__half *p, float v) { *p = __float2half_rn(v); }
# __device__ __forceinline__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
#
# #define TILE 6144  // "big enough for any block size"
#
# template <class T>
# __device__ void vector_add(const T *x, const T *y, T *out, int n)
# {
#     __shared__ float tile[2][TILE];
#     const int i = blockIdx.x * blockDim.x + threadIdx.x;
#     if (i < n) {
#         tile[0][threadIdx.x] = to_float(x[i]);
#         tile[1][threadIdx.x] = to_float(y[i]);
#     }
#     __syncthreads();
#     if (i < n) store(&out[i], tile[0][threadIdx.x] + tile[1][threadIdx.x]);
# }
#
# extern "C" __global__ void vector_add_kernel_f32(const float *x, const float *y, float *out, int n)
# >>>
# <<<
#
# extern "C" __global__ void vector_add_kernel_f16(const __half *__restrict__ x,
#                                                  const __half *__restrict__ y,
#                                                  __half *__restrict__ out, int n)
# ===
# extern "C" __global__ void vector_add_kernel_f16(const __half *x, const __half *y, __half *out,
#                                                  int n)
# >>>
# <<<
#
# extern "C" __global__ void vector_add_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
#                                                   const __nv_bfloat16 *__restrict__ y,
#                                                   __nv_bfloat16 *__restrict__ out, int n)
# ===
# extern "C" __global__ void vector_add_kernel_bf16(const __nv_bfloat16 *x, const __nv_bfloat16 *y,
#                                                   __nv_bfloat16 *out, int n)
# >>>

# %% edit vector_add_cuda
# <<<
# # Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# # no_extern_c=True: the fp16/bf16 headers are C++, so the source cannot sit inside the
# # extern "C" { } that SourceModule adds by default; each kernel is extern "C" itself.
# vector_add_module_cu = SourceModule(VECTOR_ADD_CU, no_extern_c=True)
# # The kernel for each dtype, by the name it has in VECTOR_ADD_CU.
# ===
# vector_add_module_cu = SourceModule(VECTOR_ADD_CU, no_extern_c=True)
# >>>
# <<<
# def vector_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
#     """out = x + y with vector_add_kernels_cu[x.dtype].
# ~~~
#         grid=(blocks, 1),
#     )
# ===
# def vector_add_cuda(x, y, out):
#     n = out.numel()
#     vector_add_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(y.data_ptr()),
#                                      np.uintp(out.data_ptr()), np.int32(n), block=(64, 1, 1),
#                                      grid=((n + 63) // 64, 1))
# >>>
