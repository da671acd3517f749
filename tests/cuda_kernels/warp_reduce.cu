// Warp-shuffle reductions.

__device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = warpSize / 2; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;  // complete in lane 0
}

// Sum of in[0..n) into *total: shuffles within each warp, warp sums meet in shared memory,
// warp 0 reduces them, one atomicAdd per block. blockDim.x a multiple of 32.
__global__ void warp_reduce_sum(const float *__restrict__ in, float *total, int n)
{
    __shared__ float warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;
    float v = warp_sum(i < n ? in[i] : 0.0f);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x / warpSize;
        v = warp_sum(lane < nwarps ? warp_sums[lane] : 0.0f);
        if (lane == 0) atomicAdd(total, v);
    }
}

// Per element: the max over its warp (XOR butterfly: every lane gets it) and the number of
// lanes of its warp holding a positive value (__ballot_sync + __popc).
__global__ void warp_max_and_count(const float *__restrict__ in, float *wmax, int *npos, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : -INFINITY;
    float m = v;
    for (int mask = 16; mask > 0; mask >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, mask));
    unsigned positive = __ballot_sync(0xffffffffu, i < n && v > 0.0f);
    if (i < n) {
        wmax[i] = m;
        npos[i] = __popc(positive);
    }
}

// Each lane reads lane 0's value of its 8-lane group (width 8) and its right neighbour's.
__global__ void shuffle_patterns(const int *in, int *bcast8, int *from_right, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : -1;
    int b = __shfl_sync(0xffffffffu, v, 0, 8);
    int r = __shfl_down_sync(0xffffffffu, v, 1);
    if (i < n) {
        bcast8[i] = b;
        from_right[i] = r;
    }
}
