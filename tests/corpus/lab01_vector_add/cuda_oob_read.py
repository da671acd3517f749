# impl: cuda
# status: memory_error
# reason-any: out-of-bounds read in kernel vector_add_kernel | Invalid __global__ read
# (every output right, in every dtype: only a memory checker can tell that each thread with a
#  leftover element also reads one block past it. The CPU backend's checked mode names the
#  read; on a GPU compute-sanitizer memcheck does, with torch's caching allocator off and
#  padding after each allocation, so the read cannot land inside another live tensor)

# %% edit vector_add_cu
# <<<
#         out[tail] = from_float<T>(to_float(x[tail]) + to_float(y[tail]));
# ===
#         // Reads one whole block past x[tail]: the value is never used, so every output is
#         // right and only a memory checker can tell.
#         float past_the_end = to_float(x[tail + blockDim.x]);
#         out[tail] = from_float<T>(to_float(x[tail]) + to_float(y[tail]) +
#                                   (past_the_end == 3.0e38f ? 1.0f : 0.0f));
# >>>
