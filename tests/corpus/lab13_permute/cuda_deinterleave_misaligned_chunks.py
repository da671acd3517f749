# impl: cuda
# exercise: deinterleave
# status: exception
# reason: misaligned address
# reason: deinterleave_kernel_b32
# reason: [two_n=2000, n=1000, float32]
# reason-gpu: misaligned address
# (b's elements start at x + 1, so this kernel loads b's "chunks" through
# reinterpret_cast<const uint4 *>(x + 1): 16-byte loads from an odd element offset, which is
# not 16-byte aligned. On a GPU a misaligned uint4 load faults ("misaligned address"). On the
# CPU backend the compiler copies a uint4 with aligned SSE moves, and the misaligned one
# faults too, named the same way. n = 1 has no whole chunk: the first case that loads one
# faults. The last chunk would also read one element past the end of x.)

# %% edit deinterleave_cu
# <<<
#         v[0] = reinterpret_cast<const uint4 *>(x)[2 * i];
#         v[1] = reinterpret_cast<const uint4 *>(x)[2 * i + 1];
#         const T *xs = reinterpret_cast<const T *>(v);
# ===
#         v[0] = reinterpret_cast<const uint4 *>(x)[2 * i];
#         v[1] = reinterpret_cast<const uint4 *>(x)[2 * i + 1];
#         uint4 w[2];  // the odd elements, from x + 1
#         w[0] = reinterpret_cast<const uint4 *>(x + 1)[2 * i];
#         w[1] = reinterpret_cast<const uint4 *>(x + 1)[2 * i + 1];
#         const T *xs = reinterpret_cast<const T *>(v);
#         const T *ws = reinterpret_cast<const T *>(w);
# >>>
# <<<
#             bs[k] = xs[2 * k + 1];
# ===
#             bs[k] = ws[2 * k];
# >>>
