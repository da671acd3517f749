// Reference CUDA layer-norm backward, float32 and bfloat16: the perf bar of lab08's
// `layernorm_backward` (hidden from students). Launcher: layernorm_backward_cuda.py.
//
// Byte ledger: read dy and x once, write dx once (itemsize each, n_rows x n_cols); read
// weight once (itemsize x n_cols); read the float32 mean and rstd once (4 x n_rows each);
// write the float32 dw and db once (4 x n_cols each) (lab.toml's `bytes`). Not in the ledger:
// the partial sums, n_groups x n_cols float32 for dw and for db, written by stage 1 and read
// by stage 2.
//
// Stage 1, ln_bwd_kernel_<dtype>_v<VPT> (aligned rows: dy's and x's row strides and n_cols
// whole 16-byte chunks, every base 16-byte aligned): a block per group of rows_per_group
// consecutive rows, a row at a time. Each thread owns VPT chunks of columns, the same in
// every row: weight stays in its registers, and so do its dw and db accumulators (no shared
// memory, no atomics). The next row's chunks of x and dy, and its mean and rstd, are loaded
// before the current row's reductions, so that the block's loads are in flight while it
// waits at the barriers; weight and the rows are held as read (raw 16-byte chunks) and
// widened where used. xhat is one FMA (x * rstd - mean * rstd), dx two. Both row sums go
// through one paired block reduction (one pair of barriers per row). Each kernel is built
// with __launch_bounds__(BOUND, BLOCKS): BLOCKS blocks of up to BOUND threads fit an SM's
// registers, and the launcher makes as many groups as the GPU's SMs hold such blocks (one
// wave). The bfloat16 v2 kernel asks for two blocks of 320 threads (96 registers: 5120
// columns, two chunks a thread): a bfloat16 row has half the bytes of a float32 one for the
// same arithmetic, and a single block per SM leaves the memory idle while it reduces.
// Other rows take ln_bwd_kernel_<dtype>_scalar: one element at a time, the partial rows
// accumulated in place (each thread owns its columns), the row re-read from cache for dx.
// Stage 2, column_sum_kernel: blocks of 32 columns x SUM_ROWS threads; each thread adds every
// SUM_ROWS-th partial row of its column, then shared memory adds the SUM_ROWS shares.

#include <cuda_bf16.h>

#define SUM_ROWS 16  // column_sum_kernel's blockDim.y (SUM_ROWS in layernorm_backward_cuda.py)

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
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

// Both block sums in every thread, with one pair of barriers. blockDim.x is a multiple of 32.
__device__ __forceinline__ void block_sum2(float &a, float &b, float (*scratch)[32])
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    a = warp_sum(a);
    b = warp_sum(b);
    if (lane == 0) {
        scratch[0][warp] = a;
        scratch[1][warp] = b;
    }
    __syncthreads();
    const bool live = lane < (int)(blockDim.x / 32);
    a = warp_sum(live ? scratch[0][lane] : 0.0f);
    b = warp_sum(live ? scratch[1][lane] : 0.0f);
    __syncthreads();  // scratch is reused by the next row
}

// The raw chunks of one row of x and dy that this thread owns (zeros past the row).
template <int VPT>
__device__ __forceinline__ void fetch_row(const uint4 *x4, const uint4 *dy4, int n_chunks,
                                          uint4 *xr, uint4 *dyr)
{
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        if (c < n_chunks) {
            xr[k] = __ldcs(x4 + c);  // streamed: read once
            dyr[k] = __ldcs(dy4 + c);
        } else {
            xr[k] = dyr[k] = make_uint4(0u, 0u, 0u, 0u);
        }
    }
}

// Element j of a raw chunk, widened.
template <class T> __device__ __forceinline__ float elem(const uint4 &raw, int j)
{
    return to_float(reinterpret_cast<const T *>(&raw)[j]);
}

// An optimisation barrier: the compiler must assume the chunk changed here, so it widens it
// again where it is next used instead of keeping the widened floats (and xhat and g made from
// them) alive across the block reduction. Empty: no instruction (g++ takes it as well).
__device__ __forceinline__ void keep_raw(uint4 &raw)
{
    asm volatile("" : "+r"(raw.x), "+r"(raw.y), "+r"(raw.z), "+r"(raw.w));
}

template <class T, int VPT>
__device__ __forceinline__ void ln_bwd_vec(
    const T *__restrict__ dy, const T *__restrict__ x, const float *__restrict__ mean,
    const float *__restrict__ rstd, const T *__restrict__ w, T *__restrict__ dx,
    float *__restrict__ partial_dw, float *__restrict__ partial_db, int n_rows, int n_cols,
    long long stride_dyr, long long stride_xr, int rows_per_group)
{
    constexpr int P = 16 / sizeof(T);  // elements per chunk
    __shared__ float scratch[2][32];
    const int n_chunks = n_cols / P;
    // Weight and the rows as read (4 registers a chunk, where widened bfloat16 would take 8);
    // xhat and g are recomputed from them in each pass rather than kept.
    uint4 wr[VPT];
    float acc_w[VPT][P], acc_b[VPT][P];
    const uint4 *w4 = reinterpret_cast<const uint4 *>(w);
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        wr[k] = c < n_chunks ? __ldg(w4 + c) : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
        for (int j = 0; j < P; ++j) acc_w[k][j] = acc_b[k][j] = 0.0f;
    }
    const int first = blockIdx.x * rows_per_group;
    const int last = min(first + rows_per_group, n_rows);
    // The next row, loaded an iteration before its turn: its x, dy, mean and rstd.
    uint4 x_next[VPT], dy_next[VPT];
    float mu_next = 0.0f, rs_next = 0.0f;
    if (first < last) {
        fetch_row<VPT>(reinterpret_cast<const uint4 *>(x + first * stride_xr),
                       reinterpret_cast<const uint4 *>(dy + first * stride_dyr), n_chunks,
                       x_next, dy_next);
        mu_next = mean[first];
        rs_next = rstd[first];
    }
    for (int row = first; row < last; ++row) {
        uint4 x_raw[VPT], dy_raw[VPT];
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            x_raw[k] = x_next[k];
            dy_raw[k] = dy_next[k];
        }
        const float mu = mu_next, rs = rs_next;
        if (row + 1 < last) {  // in flight during this row's sums
            fetch_row<VPT>(reinterpret_cast<const uint4 *>(x + (row + 1) * stride_xr),
                           reinterpret_cast<const uint4 *>(dy + (row + 1) * stride_dyr),
                           n_chunks, x_next, dy_next);
            mu_next = mean[row + 1];
            rs_next = rstd[row + 1];
        }
        const float nmr = -mu * rs;  // xhat = x * rs + nmr: one FMA
        float sum_g = 0.0f, sum_gx = 0.0f;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            float sg = 0.0f, sgx = 0.0f;  // a chunk's sums first: shorter dependency chains
#pragma unroll
            for (int j = 0; j < P; ++j) {
                const float d = elem<T>(dy_raw[k], j);  // zeros past the row: every term is 0
                const float xhat = fmaf(elem<T>(x_raw[k], j), rs, nmr);
                const float g = d * elem<T>(wr[k], j);
                acc_w[k][j] += d * xhat;
                acc_b[k][j] += d;
                sg += g;
                sgx += g * xhat;
            }
            sum_g += sg;
            sum_gx += sgx;
        }
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            keep_raw(x_raw[k]);
            keep_raw(dy_raw[k]);
            keep_raw(wr[k]);
        }
        block_sum2(sum_g, sum_gx, scratch);
        // dx = (g - mean_g - xhat * mean_gx) * rs = g * rs + (xhat * ca + cb): two FMAs.
        const float ca = -rs * (sum_gx / n_cols), cb = -rs * (sum_g / n_cols);
        uint4 *dx4 = reinterpret_cast<uint4 *>(dx + (long long)row * n_cols);
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            const int c = threadIdx.x + k * blockDim.x;
            if (c < n_chunks) {
                float d[P];
#pragma unroll
                for (int j = 0; j < P; ++j) {
                    const float xhat = fmaf(elem<T>(x_raw[k], j), rs, nmr);
                    const float g = elem<T>(dy_raw[k], j) * elem<T>(wr[k], j);
                    d[j] = fmaf(g, rs, fmaf(xhat, ca, cb));
                }
                __stcs(dx4 + c, pack<T>(d));
            }
        }
    }
    // This block's partial rows, as float4s (n_cols is a multiple of P >= 4: rows stay aligned).
    float4 *pw = reinterpret_cast<float4 *>(partial_dw + (long long)blockIdx.x * n_cols);
    float4 *pb = reinterpret_cast<float4 *>(partial_db + (long long)blockIdx.x * n_cols);
#pragma unroll
    for (int k = 0; k < VPT; ++k) {
        const int c = threadIdx.x + k * blockDim.x;
        if (c < n_chunks) {
#pragma unroll
            for (int q = 0; q < P / 4; ++q) {
                pw[c * (P / 4) + q] = make_float4(acc_w[k][4 * q], acc_w[k][4 * q + 1],
                                                  acc_w[k][4 * q + 2], acc_w[k][4 * q + 3]);
                pb[c * (P / 4) + q] = make_float4(acc_b[k][4 * q], acc_b[k][4 * q + 1],
                                                  acc_b[k][4 * q + 2], acc_b[k][4 * q + 3]);
            }
        }
    }
}

template <class T>
__device__ __forceinline__ void ln_bwd_scalar(
    const T *__restrict__ dy, const T *__restrict__ x, const float *__restrict__ mean,
    const float *__restrict__ rstd, const T *__restrict__ w, T *__restrict__ dx,
    float *__restrict__ partial_dw, float *__restrict__ partial_db, int n_rows, int n_cols,
    long long stride_dyr, long long stride_xr, int rows_per_group)
{
    __shared__ float scratch[2][32];
    float *pw = partial_dw + (long long)blockIdx.x * n_cols;
    float *pb = partial_db + (long long)blockIdx.x * n_cols;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) pw[c] = pb[c] = 0.0f;  // own columns
    const int first = blockIdx.x * rows_per_group;
    const int last = min(first + rows_per_group, n_rows);
    for (int row = first; row < last; ++row) {
        const T *xr = x + row * stride_xr;
        const T *dyr = dy + row * stride_dyr;
        T *dxr = dx + (long long)row * n_cols;
        const float mu = mean[row], rs = rstd[row];
        float sum_g = 0.0f, sum_gx = 0.0f;
        for (int c = threadIdx.x; c < n_cols; c += blockDim.x) {
            const float g = to_float(dyr[c]) * to_float(w[c]);
            sum_g += g;
            sum_gx += g * (to_float(xr[c]) - mu) * rs;
        }
        block_sum2(sum_g, sum_gx, scratch);
        const float mean_g = sum_g / n_cols, mean_gx = sum_gx / n_cols;
        for (int c = threadIdx.x; c < n_cols; c += blockDim.x) {
            const float d = to_float(dyr[c]);
            const float xh = (to_float(xr[c]) - mu) * rs;
            dxr[c] = from_float<T>((d * to_float(w[c]) - mean_g - xh * mean_gx) * rs);
            pw[c] += d * xh;
            pb[c] += d;
        }
    }
}

// Kernels: ln_bwd_kernel_<dtype>_v<VPT> and ln_bwd_kernel_<dtype>_scalar, each with
// __launch_bounds__(BOUND, BLOCKS): at most BOUND threads a block, BLOCKS blocks of them per SM
// (MAX_THREADS and BLOCKS_PER_SM in layernorm_backward_cuda.py, by dtype and VPT). Registers
// (ptxas 13.0 for sm_90, none spilled): float32 v1 56, v2 93, v4 156, v8 255; bfloat16 v1 64,
// v2 96, v4 248; scalar 34. v8 in bfloat16 would spill, and is not built.
#define LN_BWD_KERNEL(SUFFIX, T, VARIANT, BOUND, BLOCKS, CALL)                                 \
    extern "C" __global__ void __launch_bounds__(BOUND, BLOCKS)                                \
        ln_bwd_kernel_##SUFFIX##_##VARIANT(                                                    \
            const T *__restrict__ dy, const T *__restrict__ x, const float *__restrict__ mean, \
            const float *__restrict__ rstd, const T *__restrict__ w, T *__restrict__ dx,       \
            float *__restrict__ partial_dw, float *__restrict__ partial_db, int n_rows,        \
            int n_cols, long long stride_dyr, long long stride_xr, int rows_per_group)         \
    {                                                                                          \
        CALL(dy, x, mean, rstd, w, dx, partial_dw, partial_db, n_rows, n_cols, stride_dyr,     \
             stride_xr, rows_per_group);                                                       \
    }
LN_BWD_KERNEL(f32, float, v1, 512, 2, (ln_bwd_vec<float, 1>))
LN_BWD_KERNEL(f32, float, v2, 512, 1, (ln_bwd_vec<float, 2>))
LN_BWD_KERNEL(f32, float, v4, 320, 1, (ln_bwd_vec<float, 4>))  // 5120 columns: 320 threads
LN_BWD_KERNEL(f32, float, v8, 256, 1, (ln_bwd_vec<float, 8>))
LN_BWD_KERNEL(f32, float, scalar, 256, 1, (ln_bwd_scalar<float>))
LN_BWD_KERNEL(bf16, __nv_bfloat16, v1, 512, 2, (ln_bwd_vec<__nv_bfloat16, 1>))
LN_BWD_KERNEL(bf16, __nv_bfloat16, v2, 320, 2, (ln_bwd_vec<__nv_bfloat16, 2>))
LN_BWD_KERNEL(bf16, __nv_bfloat16, v4, 256, 1, (ln_bwd_vec<__nv_bfloat16, 4>))
LN_BWD_KERNEL(bf16, __nv_bfloat16, scalar, 256, 1, (ln_bwd_scalar<__nv_bfloat16>))

extern "C" __global__ void column_sum_kernel(const float *__restrict__ partial_dw,
                                             const float *__restrict__ partial_db,
                                             float *__restrict__ dw, float *__restrict__ db,
                                             int n_groups, int n_cols)
{
    __shared__ float part[2][SUM_ROWS][33];  // +1: the final reads down a column are conflict-free
    const int c = blockIdx.x * 32 + threadIdx.x;
    float sw = 0.0f, sb = 0.0f;
    if (c < n_cols) {
        for (int g = threadIdx.y; g < n_groups; g += SUM_ROWS) {
            sw += partial_dw[(long long)g * n_cols + c];
            sb += partial_db[(long long)g * n_cols + c];
        }
    }
    part[0][threadIdx.y][threadIdx.x] = sw;
    part[1][threadIdx.y][threadIdx.x] = sb;
    __syncthreads();
    if (threadIdx.y == 0 && c < n_cols) {
#pragma unroll
        for (int y = 1; y < SUM_ROWS; ++y) {
            sw += part[0][y][threadIdx.x];
            sb += part[1][y][threadIdx.x];
        }
        dw[c] = sw;
        db[c] = sb;
    }
}
