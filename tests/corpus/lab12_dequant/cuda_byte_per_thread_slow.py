# impl: cuda
# exercise: dequant_int4
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: one packed byte per thread (BYTES = 1), one bfloat16 pair stored. A warp's
# load asks for 32 bytes where a 32-bit word per thread asks for 128 and its uint4 stores 512:
# too few bytes in flight to keep HBM busy, and each store waits for its load.)

# %% edit dequant_int4_cu
# <<<
#     constexpr int BYTES = 4;        // packed bytes per thread: one 32-bit word, 8 weights
# ===
#     constexpr int BYTES = 1;        // packed bytes per thread: one byte, 2 weights
# >>>
# <<<
#     const unsigned v = *reinterpret_cast<const unsigned *>(packed + (size_t)row * stride_pr +
#                                                            (size_t)c * BYTES);
# ===
#     const unsigned char v = packed[(size_t)row * stride_pr + (size_t)c * BYTES];
# >>>
# <<<
#     uint4 o;  // 2 * BYTES bfloat16 = 16 bytes
# ===
#     __nv_bfloat162 o;  // 2 * BYTES bfloat16 = 4 bytes
# >>>
# <<<
#     // Neighbouring threads, neighbouring 16 bytes: the warp stores one 512-byte run.
#     *reinterpret_cast<uint4 *>(out + (size_t)g * 2 * BYTES) = o;
# ===
#     // Neighbouring threads, neighbouring 4 bytes: the warp stores one 128-byte run.
#     *reinterpret_cast<__nv_bfloat162 *>(out + (size_t)g * 2 * BYTES) = o;
# >>>

# %% edit dequant_int4_cuda
# <<<
#     n_chunks = rows * (cols // 8)  # 4 packed bytes = 8 weights per thread
# ===
#     n_chunks = rows * (cols // 2)  # 1 packed byte = 2 weights per thread
# >>>
