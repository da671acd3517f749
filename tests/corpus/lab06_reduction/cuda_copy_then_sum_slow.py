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
# VECTOR_SUM_CU = r"""
# ===
# VECTOR_SUM_CU = r"""
# __global__ void copy_kernel(const float *x, float *y, int n)
# {
#     for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
#         y[i] = x[i];
# }
#
# >>>
# <<<
#     // 1. Thread: a grid-stride loop over whole float4s (16-byte loads), from the first 16-byte
#     //    boundary of x on; the 0-3 floats before it (head) and after the last float4 (tail)
# ~~~
#     int head = (int)((16 - (size_t)x % 16) % 16) / 4;
#     if (head > n) head = n;
# ===
#     // 1. Thread: a grid-stride loop over whole float4s (16-byte loads) from the start of x,
#     //    which is the launcher's 16-byte aligned copy (no head); the 0-3 floats after the last
#     //    float4 (tail) are added one by one.
#     const int i = blockIdx.x * blockDim.x + threadIdx.x;
#     const int stride = gridDim.x * blockDim.x;
#     const int head = 0;
# >>>

# %% edit vector_sum_cuda
# <<<
# vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")
# ===
# module = SourceModule(VECTOR_SUM_CU)
# copy_kernel_cu = module.get_function("copy_kernel")
# vector_sum_kernel_cu = module.get_function("vector_sum_kernel")
# >>>
# <<<
#     out.zero_()  # the blocks add into out: it arrives full of NaN
#     vector_sum_kernel_cu(
#         np.uintp(x.data_ptr()),
# ===
#     y = torch.empty_like(x)  # a fresh allocation: 16-byte aligned
#     copy_kernel_cu(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.int32(n),
#                    block=(threads, 1, 1), grid=(blocks, 1))
#     out.zero_()  # the blocks add into out: it arrives full of NaN
#     vector_sum_kernel_cu(
#         np.uintp(y.data_ptr()),
# >>>
