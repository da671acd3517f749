# impl: cuda
# status: pass
# (honest work: the warp's reduction written with cooperative groups, as NVIDIA's own
#  samples write it: cg::reduce over each warp tile, one partial per warp in shared memory,
#  the first warp adds them, one atomicAdd per block. The CPU backend has its own
#  <cooperative_groups.h>.)

# %% edit vector_sum_cu
# <<<
# // The 32 lanes' values combined with shuffles (registers only, no barrier): the warp's sum
# // ends up in lane 0.
# ~~~
#     return v;
# }
# ===
# #include <cooperative_groups.h>
# #include <cooperative_groups/reduce.h>
# namespace cg = cooperative_groups;
#
# // The 32 lanes' values combined by cooperative groups: every lane gets the warp's sum.
# __device__ float warp_reduce_sum(float v)
# {
#     return cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), v, cg::plus<float>());
# }
# >>>
# <<<
# __global__ void vector_sum_kernel(const float *__restrict__ x,  // input: n floats, any alignment
# ===
# extern "C" __global__ void vector_sum_kernel(const float *__restrict__ x,  // n floats
# >>>

# %% edit vector_sum_cuda
# <<<
# vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")
# ===
# # The header is C++: the source cannot sit inside SourceModule's extern "C" { }.
# vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU, no_extern_c=True).get_function(
#     "vector_sum_kernel")
# >>>
