# impl: cuda
# exercise: invert
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% edit invert_cu
# <<<
#     // Thread t inverts pixels 4t .. 4t + 3: one uint4 in, one out. As a little-endian word a
#     // pixel is A B G R from the top byte down: XOR with 0x00FFFFFF flips R, G, B, keeps A.
# ~~~
#             reinterpret_cast<const unsigned *>(rgba)[tail] ^ FLIP;
#     }
# ===
#     // Correct but slow: one byte per thread. A warp's load moves 32 bytes where a uint4 per
#     // thread moves 512; too few bytes in flight to keep HBM busy.
#     const unsigned char *src = reinterpret_cast<const unsigned char *>(rgba);
#     unsigned char *dst = reinterpret_cast<unsigned char *>(out);
#     int i = blockIdx.x * blockDim.x + threadIdx.x;
#     if (i < 4 * n_pixels) dst[i] = i % 4 == 3 ? src[i] : 255 - src[i];
# >>>

# %% edit invert_cuda
# <<<
#     # One thread per 4 pixels (one uint4), and at least one block for the tail.
#     blocks = max(triton.cdiv(n // 4, threads), 1)
# ===
#     # One thread per byte.
#     blocks = max(triton.cdiv(4 * n, threads), 1)
# >>>
