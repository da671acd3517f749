// Reference CUDA sum: the perf bar for lab06 (hidden from students).
// Byte ledger: read x once, write the one float of out: (n + 1) * sizeof(float). (The
// launcher's zeroing of out writes those 4 bytes once more; the manifest counts the minimum.)
//
// Thread: a grid-stride loop over whole float4s (16-byte loads), UNROLL of them issued before
// the first is added, so that each thread keeps UNROLL * 16 bytes in flight; the 0-3 floats
// before the first 16-byte boundary of x (head) and after the last float4 (tail) are added
// one by one by the grid's first threads. Warp: shuffles. Block: one float per warp through
// shared memory. Grid: one atomicAdd per block into out, which the launcher zeroes.
//
// Kernels: vector_sum_kernel_u<UNROLL>, UNROLL in 1 / 2 / 4 / 8 (written out one by one: the
// CPU backend finds kernels by reading the source, not macros).

__device__ __forceinline__ float warp_reduce_sum(float v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;  // in lane 0
}

// The block's sum, in thread 0. Every thread of the block calls it (a barrier).
__device__ __forceinline__ float block_reduce_sum(float v)
{
    __shared__ float per_warp[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_reduce_sum(v);
    if (lane == 0) per_warp[warp] = v;
    __syncthreads();  // every warp's sum is written before the first warp reads them
    if (warp == 0) {
        v = lane < (int)(blockDim.x + 31) / 32 ? per_warp[lane] : 0.0f;
        v = warp_reduce_sum(v);
    }
    return v;
}

template <int UNROLL>
__device__ __forceinline__ void sum_body(const float *__restrict__ x, float *__restrict__ out,
                                         long long n)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long step = (long long)gridDim.x * blockDim.x;
    long long head = (long long)((16 - (size_t)x % 16) % 16) / 4;  // floats before a boundary
    if (head > n) head = n;
    const long long n4 = (n - head) / 4;
    const long long tail = head + 4 * n4;
    const float4 *x4 = reinterpret_cast<const float4 *>(x + head);
    float v = 0.0f;
    long long k = i;
    // UNROLL loads in flight, each coalesced across the warp (neighbouring threads, neighbouring
    // float4s), step apart; then the leftover rounds one float4 at a time.
    for (; k + (UNROLL - 1) * step < n4; k += UNROLL * step) {
        float4 q[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) q[u] = __ldg(x4 + k + u * step);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v += (q[u].x + q[u].y) + (q[u].z + q[u].w);
    }
    for (; k < n4; k += step) {
        const float4 q = __ldg(x4 + k);
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (i < head) v += x[i];
    if (i < n - tail) v += x[tail + i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

extern "C" __global__ void vector_sum_kernel_u1(const float *__restrict__ x,
                                                float *__restrict__ out, long long n)
{
    sum_body<1>(x, out, n);
}

extern "C" __global__ void vector_sum_kernel_u2(const float *__restrict__ x,
                                                float *__restrict__ out, long long n)
{
    sum_body<2>(x, out, n);
}

extern "C" __global__ void vector_sum_kernel_u4(const float *__restrict__ x,
                                                float *__restrict__ out, long long n)
{
    sum_body<4>(x, out, n);
}

extern "C" __global__ void vector_sum_kernel_u8(const float *__restrict__ x,
                                                float *__restrict__ out, long long n)
{
    sum_body<8>(x, out, n);
}
