# impl: cuda
# exercise: invert
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% edit invert_cu
# <<<
# INVERT_CU = r"""
# // out = rgba with R, G, B inverted (255 - v) and A kept, for n_pixels pixels.
# ~~~
#             reinterpret_cast<const unsigned *>(rgba)[tail] ^ FLIP;
#     }
# ===
# # Correct but slow: one byte per thread. A warp's load moves 32 bytes where a uint4 per
# # thread moves 512; too few bytes in flight to keep HBM busy.
# INVERT_CU = r"""
# __global__ void invert_kernel(const unsigned char *rgba, unsigned char *out, int n_bytes)
# {
#     int i = blockIdx.x * blockDim.x + threadIdx.x;
#     if (i < n_bytes) out[i] = i % 4 == 3 ? rgba[i] : 255 - rgba[i];
# >>>

# %% edit invert_cuda
# <<<
# # Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# ===
# >>>
# <<<
# def invert_cuda(rgba: torch.Tensor, out: torch.Tensor) -> None:
#     """out = the inverted image of rgba, with invert_kernel_cu.
# ~~~
#         grid=(blocks, 1),
#     )
# ===
# def invert_cuda(rgba, out):
#     n_bytes = out.numel()
#     invert_kernel_cu(np.uintp(rgba.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_bytes),
#                      block=(256, 1, 1), grid=((n_bytes + 255) // 256, 1))
# >>>
