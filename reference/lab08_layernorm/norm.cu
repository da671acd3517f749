// Reference CUDA layer norm and RMSNorm, float32 and bfloat16: the perf bar of lab08's forward
// exercises (hidden from students). Launchers: norm_cuda.py.
//
// Byte ledger: read each row of x once, write each row of out once, read weight (and bias)
// once: itemsize * (2 * n_rows * n_cols + 2 * n_cols) for layer norm, itemsize * (2 * n_rows
// * n_cols + n_cols) for RMSNorm (lab.toml's `bytes`).
//
// One block per row. Aligned rows (x's row stride and n_cols whole 16-byte chunks, every base
// 16-byte aligned) take norm_kernel_<op>_<dtype>_v<VPT>: each thread holds VPT chunks of the
// row in registers from its load to its store; the statistics are block reductions over
// those registers (warp shuffles, then one value per warp through shared memory): layer
// norm's mean first, then the sum of squared deviations around it (two passes over
// registers, no cancellation). x is read with streaming loads (__ldcs: each byte once) and
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

// A 16-byte chunk as floats, and back (one rounding).
template <class T> __device__ __forceinline__ void unpack(const uint4 &raw, float *v)
{
    const T *e = reinterpret_cast<const T *>(&raw);
#pragma unroll
    for (int j = 0; j < 16 / (int)sizeof(T); ++j) v[j] = to_float(e[j]);
}

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
    float v[VPT][P];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        if (c < n_chunks) {
            unpack<T>(__ldcs(xr + c), v[k]);
        } else {
#pragma unroll
            for (int j = 0; j < P; ++j) v[k][j] = 0.0f;  // past the row: adds nothing
        }
#pragma unroll
        for (int j = 0; j < P; ++j) s += RMS ? v[k][j] * v[k][j] : v[k][j];
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
#pragma unroll
                for (int j = 0; j < P; ++j) {
                    const float d = v[k][j] - mean;
                    q += d * d;
                }
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
            float wv[P], bv[P];
            unpack<T>(__ldg(w4 + c), wv);
            if (!RMS) unpack<T>(__ldg(b4 + c), bv);
#pragma unroll
            for (int j = 0; j < P; ++j)
                v[k][j] = (v[k][j] - mean) * rstd * wv[j] + (RMS ? 0.0f : bv[j]);
            __stcs(yr + c, pack<T>(v[k]));
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
// per block (MAX_THREADS in norm_cuda.py): 128 registers a thread, where v8 in bfloat16 needs
// 92 (ptxas for sm_90).
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
