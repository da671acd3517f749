# impl: cuda
# exercise: dequant_int4
# status: pass
# (Positive control: the 16 possible values of a nibble from a __constant__ lookup table
# instead of n - 8, and a leftover stub comment. Different, and honest: never refused.)

# %% edit dequant_int4_cu
# <<<
# #include <cuda_bf16.h>
# ===
# #include <cuda_bf16.h>
#
# // The weight each nibble stands for: value[n] = n - 8.
# __constant__ float NIBBLE_VALUE[16] = {-8.f, -7.f, -6.f, -5.f, -4.f, -3.f, -2.f, -1.f,
#                                        0.f,  1.f,  2.f,  3.f,  4.f,  5.f,  6.f,  7.f};
# >>>
# <<<
#     constexpr int BYTES = 4;        // packed bytes per thread: one 32-bit word, 8 weights
# ===
#     // YOUR CODE HERE
#     constexpr int BYTES = 4;        // packed bytes per thread: one 32-bit word, 8 weights
# >>>
# <<<
#         const float lo = (float)((b[j] & 0xF) - 8);
#         const float hi = (float)((b[j] >> 4) - 8);
# ===
#         const float lo = NIBBLE_VALUE[b[j] & 0xF];
#         const float hi = NIBBLE_VALUE[b[j] >> 4];
# >>>
