# impl: cuda
# status: pass
# (honest work: a scratch buffer zeroed with torch.zeros and an output zeroed with zero_()
#  before a kernel that accumulates into it with atomicAdd, float32 only: allocations and
#  fills are recorded on the host and replayed on the device)

# %% edit vector_add_cu
# <<<
# extern "C" __global__ void vector_add_kernel_f32(const float *__restrict__ x,
#                                                  const float *__restrict__ y,
#                                                  float *__restrict__ out, int n)
# {
#     vector_add(x, y, out, n);
# }
# ===
# extern "C" __global__ void vector_add_kernel_f32(const float *__restrict__ x,
#                                                  const float *__restrict__ y,
#                                                  float *__restrict__ out, float *count, int n)
# {
#     // Accumulates into out, which the launcher zeroes; count counts the blocks.
#     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
#         atomicAdd(&out[i], x[i]);
#         atomicAdd(&out[i], y[i]);
#     }
#     if (threadIdx.x == 0) atomicAdd(count, 1.0f);
# }
# >>>

# %% edit vector_add_cuda
# <<<
#     blocks = max(triton.cdiv(n // pack, threads), 1)
# ===
#     blocks = max(triton.cdiv(n // pack, threads), 1)
#     if out.dtype == torch.float32:  # accumulates: a zeroed output and a zeroed counter
#         count = torch.zeros(1, dtype=torch.float32, device=x.device)
#         out.zero_()
#         kernel(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
#                np.uintp(count.data_ptr()), np.int32(n), block=(threads, 1, 1), grid=(blocks, 1))
#         return
# >>>
