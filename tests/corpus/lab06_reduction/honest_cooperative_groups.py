# impl: cuda
# status: pass
# (honest work: the reduction written with cooperative groups, as NVIDIA's own samples write
#  it: cg::reduce over each warp tile, one partial per warp in shared memory, the first warp
#  adds them, one atomicAdd per block. The CPU backend has its own <cooperative_groups.h>.)

# %% nbgrader={"grade_id": "vector_sum_cu", "solution": true}
VECTOR_SUM_CU = r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void vector_sum_kernel(const float *x, float *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float per_warp[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i];
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) per_warp[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = warp.thread_rank() < warp.meta_group_size() ? per_warp[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
        if (warp.thread_rank() == 0) atomicAdd(out, v);
    }
}
"""

# %% nbgrader={"grade_id": "vector_sum_cuda", "solution": true}
# The header is C++: the source cannot sit inside SourceModule's extern "C" { }.
vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU, no_extern_c=True).get_function(
    "vector_sum_kernel")


def vector_sum_cuda(x, out):
    n = x.numel()
    out.zero_()
    blocks = max(1, min(triton.cdiv(n, 1024), 264))
    vector_sum_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                         block=(256, 1, 1), grid=(blocks, 1))
