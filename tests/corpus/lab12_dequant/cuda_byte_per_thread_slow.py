# impl: cuda
# exercise: dequant_int4
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: one packed byte per thread, one bfloat16 pair stored. A warp's load asks
# for 32 bytes where a uint4 per thread asks for 512: too few bytes in flight to keep HBM
# busy, and each store waits for its load.)

# %% edit dequant_int4_cu
# <<<
# extern "C" __global__ void dequant_int4_kernel(
#     const unsigned char *__restrict__ packed,  // [rows, cols / 2], rows stride_pr bytes apart
# ~~~
#     // Neighbouring threads, neighbouring 16 bytes: the warp stores one 512-byte run.
#     *reinterpret_cast<uint4 *>(out + (size_t)g * 2 * BYTES) = o;
# ===
# extern "C" __global__ void dequant_int4_kernel(const unsigned char *__restrict__ packed,
#                                                const __nv_bfloat16 *__restrict__ scale,
#                                                __nv_bfloat16 *__restrict__ out, int n_rows,
#                                                int n_cols, int stride_pr, int stride_sr)
# {
#     const int bytes_per_row = n_cols / 2;
#     const int i = blockIdx.x * blockDim.x + threadIdx.x;  // this thread's byte
#     if (i >= n_rows * bytes_per_row) return;
#     const int row = i / bytes_per_row;
#     const int j = i - row * bytes_per_row;
#     const unsigned char b = packed[(size_t)row * stride_pr + j];
#     const float s = __bfloat162float(scale[(size_t)row * stride_sr + j / 64]);
#     reinterpret_cast<__nv_bfloat162 *>(out)[i] =
#         __floats2bfloat162_rn(((b & 0xF) - 8) * s, ((b >> 4) - 8) * s);
# >>>

# %% edit dequant_int4_cuda
# <<<
# def dequant_int4_cuda(packed: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
#     """out[r, c] = (nibble c of packed row r - 8) * scale[r, c // 128], dequant_int4_kernel_cu.
# ~~~
#         grid=(triton.cdiv(n_chunks, threads), 1),
#     )
# ===
# def dequant_int4_cuda(packed, scale, out):
#     rows, cols = out.shape
#     n_bytes = rows * cols // 2
#     dequant_int4_kernel_cu(np.uintp(packed.data_ptr()), np.uintp(scale.data_ptr()),
#                            np.uintp(out.data_ptr()), np.int32(rows), np.int32(cols),
#                            np.int32(packed.stride(0)), np.int32(scale.stride(0)),
#                            block=(256, 1, 1), grid=(triton.cdiv(n_bytes, 256), 1))
# >>>
