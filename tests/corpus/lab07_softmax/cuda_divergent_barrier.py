# impl: cuda
# status: exception
# reason: divergent barrier
# reason: line 15
# status-gpu: timeout
# reason-gpu: killed after 20 s
# timeout-gpu: 20
# (the block reduction done as a tree in shared memory instead of with shuffles, and the tree's
#  barrier moved inside the `if`: only the threads still adding wait at it, the others go on to
#  the barrier after the loop. The CPU backend names both lines. On an H200 the block never
#  gets past it: the launch hangs and is killed at the time limit.)

# %% edit softmax_cu
# <<<
# // One value per thread in, the block's max (or sum) out, in every thread. Each warp first
# // combines its 32 values with shuffles (registers only, no barrier); then one value per warp
# ~~~
#     return v;
# }
# ===
# // The block's max (or sum) of one value per thread, in every thread: a shared-memory tree.
# __device__ float block_reduce(float v, bool is_max)
# {
#     __shared__ float partial[1024];
#     partial[threadIdx.x] = v;
#     __syncthreads();
#     for (int half = blockDim.x / 2; half > 0; half /= 2) {
#         if (threadIdx.x < half) {
#             float other = partial[threadIdx.x + half];
#             partial[threadIdx.x] = is_max ? fmaxf(partial[threadIdx.x], other)
#                                           : partial[threadIdx.x] + other;
#             __syncthreads();
#         }
#     }
#     __syncthreads();
#     float result = partial[0];
#     __syncthreads();
#     return result;
# }
# >>>
