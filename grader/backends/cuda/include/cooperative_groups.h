// cooperative_groups on the CPU backend: the thread block and its warp tiles, the groups
// CUDA's reductions are written with, built on __syncthreads(), __syncwarp() and the warp
// shuffles (their checks included). Grid-wide groups need a cooperative launch, which
// SourceModule's launch is not: this_grid() is absent here as it is unusable there.
#pragma once

namespace cooperative_groups {

class thread_block {
  public:
    void sync() const { __syncthreads(); }
    unsigned thread_rank() const {
        return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    }
    unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    unsigned num_threads() const { return size(); }
    dim3 group_index() const { return blockIdx; }
    dim3 thread_index() const { return threadIdx; }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }
inline void sync(const thread_block& g) { g.sync(); }

// Size consecutive threads of a warp. Lanes past the end of the block are left out of the
// tile's mask, as the hardware leaves them inactive.
template <unsigned Size>
class thread_block_tile {
    static_assert(Size == 1 || Size == 2 || Size == 4 || Size == 8 || Size == 16 || Size == 32,
                  "a thread_block_tile holds 1, 2, 4, 8, 16 or 32 threads");
    unsigned base_, mask_;

  public:
    thread_block_tile() {
        const thread_block block;
        const unsigned rank = block.thread_rank(), warp_first = rank / 32 * 32;
        const unsigned lanes = block.size() - warp_first < 32 ? block.size() - warp_first : 32;
        base_ = rank % 32 / Size * Size;
        const unsigned tile = Size == 32 ? 0xffffffffu : ((1u << Size) - 1u) << base_;
        mask_ = tile & (lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u);
    }
    unsigned thread_rank() const { return thread_block().thread_rank() % Size; }
    unsigned size() const { return Size; }
    unsigned num_threads() const { return Size; }
    unsigned meta_group_rank() const { return thread_block().thread_rank() / Size; }
    unsigned meta_group_size() const { return (thread_block().size() + Size - 1) / Size; }
    void sync() const { __syncwarp(mask_); }
    template <class T> T shfl(T v, int src) const { return __shfl_sync(mask_, v, src, Size); }
    template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask_, v, d, Size); }
    template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask_, v, d, Size); }
    template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask_, v, m, Size); }
    int any(int p) const { return __any_sync(mask_, p); }
    int all(int p) const { return __all_sync(mask_, p); }
    unsigned ballot(int p) const { return (__ballot_sync(mask_, p) & mask_) >> base_; }
};

template <unsigned Size>
inline thread_block_tile<Size> tiled_partition(const thread_block&) {
    return thread_block_tile<Size>();
}
template <unsigned Size>
inline void sync(const thread_block_tile<Size>& g) { g.sync(); }

// cg::reduce and its operators (<cooperative_groups/reduce.h>): a butterfly over the tile.
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

template <unsigned Size, class T, class Op>
inline T reduce(const thread_block_tile<Size>& g, T value, Op op) {
    for (unsigned lane_mask = 1; lane_mask < Size; lane_mask *= 2)
        value = op(value, g.shfl_xor(value, static_cast<int>(lane_mask)));
    return value;
}

}  // namespace cooperative_groups
