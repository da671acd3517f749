# impl: cuda
# exercise: flip_inplace
# device: cpu
# status: race
# reason: the result depends on thread order
# reason: [n=1000, float32]
# (The obvious in-place kernel: n threads, each out[i] = out[n - 1 - i], reading and writing
# the same array with no pairing. Whichever of threads i and n - 1 - i runs second reads what
# the first wrote, so one end of every pair is lost: in ascending thread order the front half
# is mirrored and the back half keeps its own values; in descending order the back half is
# mirrored and the front half keeps its own. Wrong both ways, and not the same way: the
# grader's rerun with each block's threads in reverse order (CPU backend) reports a race.
# n = 1 is its own mirror and passes; n = 1000 is the first case caught. CPU only: on a GPU
# the outcome depends on timing (at these small sizes every load may well land before any
# store and the result come out right), so no verdict can be promised there.)

# %% edit flip_inplace_cu
# <<<
#     constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
# ~~~
#         out[j] = a;
#     }
# ===
#     int i = blockIdx.x * blockDim.x + threadIdx.x;
#     if (i < n) {
#         out[i] = out[n - 1 - i];
#     }
# >>>

# %% edit flip_inplace_cuda
# <<<
#     blocks = max(triton.cdiv(work, threads), 1)  # one block even without a pair
# ===
#     blocks = triton.cdiv(n, threads)  # one thread per element
# >>>
