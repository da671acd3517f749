// tclab: no_extern_c
// Cooperative groups: 16-thread tiles, each reducing its elements (max) and counting its
// positive ones with a ballot; the block's sum over its warps with cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tile_stats(const float *x, float *tile_max, int *tile_pos,
                                      float *block_sum, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float per_warp[32];
    const int i = blockIdx.x * blockDim.x + block.thread_rank();
    const float v = i < n ? x[i] : -INFINITY;
    const float m = cg::reduce(tile, v, cg::greater<float>());
    const unsigned positive = tile.ballot(i < n && v > 0.0f);
    const int t = i / 16;
    if (tile.thread_rank() == 0 && t * 16 < n) {
        tile_max[t] = m;
        tile_pos[t] = __popc(positive);
    }
    float s = cg::reduce(warp, i < n ? v : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) per_warp[warp.meta_group_rank()] = s;
    block.sync();
    if (block.thread_rank() == 0) {
        float total = 0.0f;
        for (unsigned w = 0; w < warp.meta_group_size(); ++w) total += per_warp[w];
        block_sum[blockIdx.x] = total;
    }
}
