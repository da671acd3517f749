// Reference CUDA layer norm and RMSNorm, float32 and bfloat16: the perf bar of lab08's forward
// exercises (hidden from students). Launchers: norm_cuda.py.
//
// Byte ledger: read each row of x once, write each row of out once, read weight (and bias)
// once: itemsize * (2 * n_rows * n_cols + 2 * n_cols) for layer norm, itemsize * (2 * n_rows
// * n_cols + n_cols) for RMSNorm (lab.toml's `bytes`).
//
// One block per row. Aligned rows (x's row stride and n_cols whole 16-byte chunks, every base
// 16-byte aligned) take norm_kernel_<op>_<dtype>_v<VPT>: each thread holds VPT chunks of the
// row in registers from its load to its store, as read (a bfloat16 chunk widened to floats
// would take twice the registers); the statistics are block reductions over those registers
// (warp shuffles, then one value per warp through shared memory): layer norm's mean first,
// then the sum of squared deviations around it (two passes over registers, no
// cancellation). x is read with streaming loads (__ldcs: each byte once) and
// out written with streaming stores; weight and bias, read by every row, through __ldg.
// Other rows take the _scalar kernels: the same statistics in three passes over the row, one
// element at a time (the second and third passes hit L1/L2); any length.

#include <cuda_bf16.h>

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

// Floats as a 16-byte chunk (one rounding).
template <class T> __device__ __forceinline__ uint4 pack(const float *v)
{
    uint4 raw;
    T *e = reinterpret_cast<T *>(&raw);
#pragma unroll
    for (int j = 0; j < 16 / (int)sizeof(T); ++j) e[j] = from_float<T>(v[j]);
    return raw;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// The block's sum in every thread. blockDim.x is a multiple of 32. scratch: 32 floats of
// shared memory, free on entry and again on return.
__device__ __forceinline__ float block_sum(float v, float *scratch)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x / 32) ? scratch[lane] : 0.0f;
    v = warp_sum(v);
    __syncthreads();  // scratch is reused by the next reduction
    return v;
}

// Element j of a raw chunk, widened.
template <class T> __device__ __forceinline__ float elem(const uint4 &raw, int j)
{
    return to_float(reinterpret_cast<const T *>(&raw)[j]);
}

template <class T, int VPT, bool RMS>
__device__ __forceinline__ void norm_vec(const T *__restrict__ x, const T *__restrict__ w,
                                         const T *__restrict__ b, T *__restrict__ out,
                                         int n_cols, long long stride_xr, float eps)
{
    constexpr int P = 16 / sizeof(T);  // elements per chunk
    __shared__ float scratch[32];
    const int n_chunks = n_cols / P;
    const uint4 *xr = reinterpret_cast<const uint4 *>(x + blockIdx.x * stride_xr);
    uint4 *yr = reinterpret_cast<uint4 *>(out + (long long)blockIdx.x * n_cols);
    // The row as read: 4 registers a chunk in either dtype, where widened bfloat16 would take
    // 8 (half the bytes in flight per register); each pass widens what it uses.
    uint4 v[VPT];
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        v[k] = c < n_chunks ? __ldcs(xr + c) : make_uint4(0u, 0u, 0u, 0u);  // 0 past the row
    }
    // Sums a chunk at a time, then across chunks: dependency chains of P + VPT additions
    // instead of P x VPT.
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        float sk = 0.0f;
#pragma unroll
        for (int j = 0; j < P; ++j) {
            const float e = elem<T>(v[k], j);
            sk += RMS ? e * e : e;
        }
        s += sk;
    }
    float mean = 0.0f, rstd;
    if (RMS) {
        rstd = rsqrtf(block_sum(s, scratch) / n_cols + eps);
    } else {
        mean = block_sum(s, scratch) / n_cols;
        float q = 0.0f;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            if (threadIdx.x + k * blockDim.x < n_chunks) {  // not the zeros past the row
                float qk = 0.0f;
#pragma unroll
                for (int j = 0; j < P; ++j) {
                    const float d = elem<T>(v[k], j) - mean;
                    qk += d * d;
                }
                q += qk;
            }
        }
        rstd = rsqrtf(block_sum(q, scratch) / n_cols + eps);
    }
    const uint4 *w4 = reinterpret_cast<const uint4 *>(w);
    const uint4 *b4 = reinterpret_cast<const uint4 *>(b);
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        if (c < n_chunks) {
            const uint4 wc = __ldg(w4 + c);
            const uint4 bc = RMS ? wc : __ldg(b4 + c);
            float y[P];
#pragma unroll
            for (int j = 0; j < P; ++j)
                y[j] = (elem<T>(v[k], j) - mean) * rstd * elem<T>(wc, j)
                       + (RMS ? 0.0f : elem<T>(bc, j));
            __stcs(yr + c, pack<T>(y));
        }
    }
}

template <class T, bool RMS>
__device__ __forceinline__ void norm_scalar(const T *__restrict__ x, const T *__restrict__ w,
                                            const T *__restrict__ b, T *__restrict__ out,
                                            int n_cols, long long stride_xr, float eps)
{
    __shared__ float scratch[32];
    const T *xr = x + blockIdx.x * stride_xr;
    T *yr = out + (long long)blockIdx.x * n_cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) {
        const float v = to_float(xr[c]);
        s += RMS ? v * v : v;
    }
    float mean = 0.0f, rstd;
    if (RMS) {
        rstd = rsqrtf(block_sum(s, scratch) / n_cols + eps);
    } else {
        mean = block_sum(s, scratch) / n_cols;
        float q = 0.0f;
        for (int c = threadIdx.x; c < n_cols; c += blockDim.x) {
            const float d = to_float(xr[c]) - mean;
            q += d * d;
        }
        rstd = rsqrtf(block_sum(q, scratch) / n_cols + eps);
    }
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) {
        const float y = (to_float(xr[c]) - mean) * rstd * to_float(w[c]);
        yr[c] = from_float<T>(RMS ? y : y + to_float(b[c]));
    }
}

// Kernels: norm_kernel_{layernorm,rmsnorm}_{f32,bf16}_{v1,v2,v4,v8,scalar}, all with the
// arguments (x, w, b, out, n_cols, stride_xr, eps); RMSNorm ignores b. At most 512 threads
// per block (MAX_THREADS in norm_cuda.py): 128 registers a thread, where layer norm's v8 in
// bfloat16, the hungriest, needs 90 (ptxas for sm_90; 109 when it held the row as floats).
#define NORM_KERNEL(OP, RMS, SUFFIX, T, VARIANT, CALL)                                        \
    extern "C" __global__ void __launch_bounds__(512) norm_kernel_##OP##_##SUFFIX##_##VARIANT( \
        const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b,             \
        T *__restrict__ out, int n_cols, long long stride_xr, float eps)                       \
    {                                                                                          \
        CALL(x, w, b, out, n_cols, stride_xr, eps);                                            \
    }
#define NORM_VEC(OP, RMS, SUFFIX, T, VPT) \
    NORM_KERNEL(OP, RMS, SUFFIX, T, v##VPT, (norm_vec<T, VPT, RMS>))
#define NORM_ALL(OP, RMS, SUFFIX, T)                                      \
    NORM_VEC(OP, RMS, SUFFIX, T, 1)                                       \
    NORM_VEC(OP, RMS, SUFFIX, T, 2)                                       \
    NORM_VEC(OP, RMS, SUFFIX, T, 4)                                       \
    NORM_VEC(OP, RMS, SUFFIX, T, 8)                                       \
    NORM_KERNEL(OP, RMS, SUFFIX, T, scalar, (norm_scalar<T, RMS>))

NORM_ALL(layernorm, false, f32, float)
NORM_ALL(layernorm, false, bf16, __nv_bfloat16)
NORM_ALL(rmsnorm, true, f32, float)
NORM_ALL(rmsnorm, true, bf16, __nv_bfloat16)
