// Reference CUDA row softmax: the perf bar for lab07 (hidden from students).
// Byte ledger: read each row once, write it once: 2 * n_rows * n_cols * sizeof(float).
//
// One block per row. The row lives in registers as VPT float4s per thread between the max,
// the exponentials and the sum; reductions are warp shuffles, then one shared-memory step.
// Rows that are not float4-aligned (n_cols or stride_xr not a multiple of 4) take the
// scalar kernel, which reads the row twice (the second time mostly from L2).

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Every thread gets the block-wide result. scratch: 32 floats of shared memory.
template <bool IS_MAX>
__device__ __forceinline__ float block_reduce(float v, float *scratch)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int warps = (blockDim.x + 31) / 32;
    v = IS_MAX ? warp_max(v) : warp_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : (IS_MAX ? -INFINITY : 0.0f);
    v = IS_MAX ? warp_max(v) : warp_sum(v);
    __syncthreads();  // scratch is reused by the next reduction
    return v;
}

template <int VPT>
__device__ __forceinline__ void softmax_vec(const float *__restrict__ x, float *__restrict__ out,
                                            int n_cols, int stride_xr)
{
    __shared__ float scratch[32];
    const int n4 = n_cols / 4;
    const float4 *row = reinterpret_cast<const float4 *>(x + (size_t)blockIdx.x * stride_xr);
    float4 *orow = reinterpret_cast<float4 *>(out + (size_t)blockIdx.x * n_cols);
    float4 v[VPT];
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        v[k] = c < n4 ? __ldg(row + c)
                      : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
    }
    m = block_reduce<true>(m, scratch);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        v[k].x = expf(v[k].x - m);
        v[k].y = expf(v[k].y - m);
        v[k].z = expf(v[k].z - m);
        v[k].w = expf(v[k].w - m);
        s += (v[k].x + v[k].y) + (v[k].z + v[k].w);  // padding: exp(-inf) = 0
    }
    const float inv = 1.0f / block_reduce<false>(s, scratch);
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        if (c < n4) orow[c] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
    }
}

#define SOFTMAX_VEC(VPT)                                                                        \
    extern "C" __global__ void softmax_kernel_v##VPT(const float *__restrict__ x,               \
                                                     float *__restrict__ out, int n_cols,       \
                                                     int stride_xr)                             \
    {                                                                                           \
        softmax_vec<VPT>(x, out, n_cols, stride_xr);                                            \
    }
SOFTMAX_VEC(1)
SOFTMAX_VEC(2)
SOFTMAX_VEC(4)
SOFTMAX_VEC(8)

// Any shape: one pass for the max, one for the sum and the write (the row re-read from L2).
extern "C" __global__ void softmax_kernel_scalar(const float *__restrict__ x,
                                                 float *__restrict__ out, int n_cols,
                                                 int stride_xr)
{
    __shared__ float scratch[32];
    const float *row = x + (size_t)blockIdx.x * stride_xr;
    float *orow = out + (size_t)blockIdx.x * n_cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) m = fmaxf(m, row[c]);
    m = block_reduce<true>(m, scratch);
    float s = 0.0f;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) s += expf(row[c] - m);
    const float inv = 1.0f / block_reduce<false>(s, scratch);
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) orow[c] = expf(row[c] - m) * inv;
}
