# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: one element per thread in 64-thread blocks, each staging its inputs in a
#  __shared__ tile sized for "any block" (2 x 6144 floats, 48 KiB). Shared memory per SM then
#  holds four such blocks: eight warps of the 64 an SM can run, too few loads in flight to keep
#  DRAM busy. The profile's low-occupancy control.)

# %% edit vector_add_cu
# <<<
# // out = x + y for n elements of type T (float, __half or __nv_bfloat16): the kernels below
# // call it with their own T.
# template <class T>
# ===
# #define TILE 6144  // "big enough for any block size"
#
# // out = x + y for n elements of type T (float, __half or __nv_bfloat16): the kernels below
# // call it with their own T.
# template <class T>
# >>>
# <<<
# {
#     // Thread i adds the elements of 16-byte chunk i: one uint4 load per input instead of 4
# ~~~
#     }
# }
# ===
# {
#     // One element per thread, staged in a 48 KiB tile of which a 64-thread block uses 512 B.
#     __shared__ float tile[2][TILE];
#     const int i = blockIdx.x * blockDim.x + threadIdx.x;
#     if (i < n) {
#         tile[0][threadIdx.x] = to_float(x[i]);
#         tile[1][threadIdx.x] = to_float(y[i]);
#     }
#     __syncthreads();
#     if (i < n) out[i] = from_float<T>(tile[0][threadIdx.x] + tile[1][threadIdx.x]);
# }
# >>>

# %% edit vector_add_cuda
# <<<
#     pack = load_bytes // out.element_size()  # elements per thread: 4 floats or 8 16-bit
#     threads = 256
#     # One thread per 16-byte chunk, and at least one block for the tail of a tiny vector.
#     blocks = max(triton.cdiv(n // pack, threads), 1)
# ===
#     threads = 64
#     blocks = max(triton.cdiv(n, threads), 1)  # one thread per element
# >>>
