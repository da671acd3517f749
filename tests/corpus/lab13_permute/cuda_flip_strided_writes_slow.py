# impl: cuda
# exercise: flip
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct everywhere, but uncoalesced: each thread reverses a run of RUN = 64 contiguous
# elements, one element per step, so at each store the 32 threads of a warp write 32
# elements RUN apart (256 bytes in float32, 128 in 16-bit): 32 sectors per store where a
# coalesced store touches 4, and the reads likewise. Each side scalar, too: no 16-byte access.)

# %% edit flip_cu
# <<<
#     constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
# ~~~
#     if (tail < n) {  // only the first n % PACK threads have one
#         out[tail] = x[n - 1 - tail];
#     }
# ===
#     constexpr int RUN = 64;  // contiguous elements per thread
#     int i = blockIdx.x * blockDim.x + threadIdx.x;
#     for (int k = 0; k < RUN; ++k) {
#         long long j = (long long)i * RUN + k;  // thread i's k-th element of out
#         if (j < n) out[j] = x[n - 1 - j];
#     }
# >>>

# %% edit flip_cuda
# <<<
#     blocks = max(triton.cdiv(n // pack, threads), 1)  # at least one block, for the tail
# ===
#     blocks = max(triton.cdiv(n, threads * 64), 1)  # RUN = 64 elements per thread
# >>>
