// Reference CUDA gated units: the perf bar of lab04's three exercises (hidden from students).
//
// Byte ledger (every exercise, lab.toml's `bytes`): read gate and up once, write out once:
// 3 * rows * h * sizeof(bfloat16). Eager torch moves 5 * rows * h: silu/gelu reads gate and
// writes a temporary, the multiply reads the temporary and up and writes out.
//
// Each thread moves VEC 16-byte chunks of each tensor (uint4: 8 bfloat16, the widest access a
// thread can issue); it issues all of its loads before the arithmetic, so that 2 * VEC * 16
// bytes per thread are in flight. Arithmetic in float, one round-to-nearest-even per output.
//
// Kernels (written out one by one: the CPU backend finds kernels by reading the source):
//   swiglu_kernel_v<VEC>               gate, up, out contiguous: one flat array of n elements
//   swiglu_packed_kernel_v<VEC>        x [rows, 2h] (rows stride_xr apart), out [rows, h];
//   geglu_packed_kernel_v<VEC>         every row 16-byte aligned (h, stride_xr multiples of 8)
//   swiglu_packed_kernel_scalar        any h and stride: one element per thread
//   geglu_packed_kernel_scalar
// VEC in 1 / 2 / 4.

#include <cuda_bf16.h>

// silu(g) = g / (1 + e^-g): one MUFU exponential and a division. e^-g = inf below g = -88
// gives g / inf = -0, the right limit.
struct Silu {
    __device__ __forceinline__ static float apply(float g) { return g / (1.0f + __expf(-g)); }
};

// gelu_tanh(g) = 0.5 g (1 + tanh(y)) = g / (1 + e^(-2y)), y = sqrt(2/pi) (g + 0.044715 g^3):
// the same cost as silu, no tanh, no cancellation in 1 + tanh(y).
struct GeluTanh {
    __device__ __forceinline__ static float apply(float g)
    {
        const float two_y = 1.5957691216057308f * fmaf(0.044715f * g, g * g, g);  // 2 sqrt(2/pi)
        return g / (1.0f + __expf(-two_y));
    }
};

// act(gate) * up for the 8 elements of one 16-byte chunk of each, as 4 bfloat16 pairs.
template <class Act>
__device__ __forceinline__ uint4 gated_chunk(uint4 g, uint4 u)
{
    uint4 o;
    const __nv_bfloat162 *g2 = reinterpret_cast<const __nv_bfloat162 *>(&g);
    const __nv_bfloat162 *u2 = reinterpret_cast<const __nv_bfloat162 *>(&u);
    __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(&o);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const float2 gf = __bfloat1622float2(g2[k]);
        const float2 uf = __bfloat1622float2(u2[k]);
        o2[k] = __floats2bfloat162_rn(Act::apply(gf.x) * uf.x, Act::apply(gf.y) * uf.y);
    }
    return o;
}

template <class Act>
__device__ __forceinline__ __nv_bfloat16 gated_one(__nv_bfloat16 g, __nv_bfloat16 u)
{
    return __float2bfloat16_rn(Act::apply(__bfloat162float(g)) * __bfloat162float(u));
}

// ---------------------------------------------------------------- separate tensors, flat

// Block b covers chunks [b * blockDim.x * VEC, (b + 1) * blockDim.x * VEC), neighbouring
// threads on neighbouring chunks (coalesced); the grid's first n % 8 threads finish the tail.
template <class Act, int VEC>
__device__ __forceinline__ void gated_flat(const __nv_bfloat16 *__restrict__ gate,
                                           const __nv_bfloat16 *__restrict__ up,
                                           __nv_bfloat16 *__restrict__ out, long long n)
{
    const long long n_chunks = n / 8;
    const uint4 *g16 = reinterpret_cast<const uint4 *>(gate);
    const uint4 *u16 = reinterpret_cast<const uint4 *>(up);
    uint4 *o16 = reinterpret_cast<uint4 *>(out);
    const long long first = (long long)blockIdx.x * blockDim.x * VEC + threadIdx.x;
    uint4 g[VEC], u[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        const long long i = first + (long long)k * blockDim.x;
        if (i < n_chunks) {  // the last block runs past the last whole chunk
            g[k] = __ldg(g16 + i);
            u[k] = __ldg(u16 + i);
        }
    }
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        const long long i = first + (long long)k * blockDim.x;
        if (i < n_chunks) o16[i] = gated_chunk<Act>(g[k], u[k]);
    }
    const long long tail = n_chunks * 8 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n) out[tail] = gated_one<Act>(gate[tail], up[tail]);
}

extern "C" __global__ void swiglu_kernel_v1(const __nv_bfloat16 *__restrict__ gate,
                                            const __nv_bfloat16 *__restrict__ up,
                                            __nv_bfloat16 *__restrict__ out, long long n)
{
    gated_flat<Silu, 1>(gate, up, out, n);
}

extern "C" __global__ void swiglu_kernel_v2(const __nv_bfloat16 *__restrict__ gate,
                                            const __nv_bfloat16 *__restrict__ up,
                                            __nv_bfloat16 *__restrict__ out, long long n)
{
    gated_flat<Silu, 2>(gate, up, out, n);
}

extern "C" __global__ void swiglu_kernel_v4(const __nv_bfloat16 *__restrict__ gate,
                                            const __nv_bfloat16 *__restrict__ up,
                                            __nv_bfloat16 *__restrict__ out, long long n)
{
    gated_flat<Silu, 4>(gate, up, out, n);
}

// ---------------------------------------------------------------- packed [gate | up] rows

// blockIdx.x: a group of blockDim.x * VEC chunks of a row; blockIdx.y: the first row, then
// every gridDim.y-th (a grid's y stops at 65535 rows). Needs h % 8 == 0, stride_xr % 8 == 0
// and 16-byte aligned bases: then every row of gate, up and out is 16-byte aligned.
template <class Act, int VEC>
__device__ __forceinline__ void gated_packed_vec(const __nv_bfloat16 *__restrict__ x,
                                                 __nv_bfloat16 *__restrict__ out, int rows,
                                                 int h, long long stride_xr)
{
    const int chunks = h / 8;
    const int first = blockIdx.x * blockDim.x * VEC + threadIdx.x;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const uint4 *g16 = reinterpret_cast<const uint4 *>(x + (long long)row * stride_xr);
        const uint4 *u16 = reinterpret_cast<const uint4 *>(x + (long long)row * stride_xr + h);
        uint4 *o16 = reinterpret_cast<uint4 *>(out + (long long)row * h);
        uint4 g[VEC], u[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = first + k * blockDim.x;
            if (c < chunks) {  // the row's last block runs past its end
                g[k] = __ldg(g16 + c);
                u[k] = __ldg(u16 + c);
            }
        }
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = first + k * blockDim.x;
            if (c < chunks) o16[c] = gated_chunk<Act>(g[k], u[k]);
        }
    }
}

// Any h, stride and alignment: blockIdx.x * blockDim.x + threadIdx.x is a column.
template <class Act>
__device__ __forceinline__ void gated_packed_scalar(const __nv_bfloat16 *__restrict__ x,
                                                    __nv_bfloat16 *__restrict__ out, int rows,
                                                    int h, long long stride_xr)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= h) return;  // the row's last block runs past its end
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const __nv_bfloat16 *gate = x + (long long)row * stride_xr;
        out[(long long)row * h + c] = gated_one<Act>(gate[c], gate[h + c]);
    }
}

extern "C" __global__ void swiglu_packed_kernel_v1(const __nv_bfloat16 *__restrict__ x,
                                                   __nv_bfloat16 *__restrict__ out, int rows,
                                                   int h, long long stride_xr)
{
    gated_packed_vec<Silu, 1>(x, out, rows, h, stride_xr);
}

extern "C" __global__ void swiglu_packed_kernel_v2(const __nv_bfloat16 *__restrict__ x,
                                                   __nv_bfloat16 *__restrict__ out, int rows,
                                                   int h, long long stride_xr)
{
    gated_packed_vec<Silu, 2>(x, out, rows, h, stride_xr);
}

extern "C" __global__ void swiglu_packed_kernel_v4(const __nv_bfloat16 *__restrict__ x,
                                                   __nv_bfloat16 *__restrict__ out, int rows,
                                                   int h, long long stride_xr)
{
    gated_packed_vec<Silu, 4>(x, out, rows, h, stride_xr);
}

extern "C" __global__ void swiglu_packed_kernel_scalar(const __nv_bfloat16 *__restrict__ x,
                                                       __nv_bfloat16 *__restrict__ out,
                                                       int rows, int h, long long stride_xr)
{
    gated_packed_scalar<Silu>(x, out, rows, h, stride_xr);
}

extern "C" __global__ void geglu_packed_kernel_v1(const __nv_bfloat16 *__restrict__ x,
                                                  __nv_bfloat16 *__restrict__ out, int rows,
                                                  int h, long long stride_xr)
{
    gated_packed_vec<GeluTanh, 1>(x, out, rows, h, stride_xr);
}

extern "C" __global__ void geglu_packed_kernel_v2(const __nv_bfloat16 *__restrict__ x,
                                                  __nv_bfloat16 *__restrict__ out, int rows,
                                                  int h, long long stride_xr)
{
    gated_packed_vec<GeluTanh, 2>(x, out, rows, h, stride_xr);
}

extern "C" __global__ void geglu_packed_kernel_v4(const __nv_bfloat16 *__restrict__ x,
                                                  __nv_bfloat16 *__restrict__ out, int rows,
                                                  int h, long long stride_xr)
{
    gated_packed_vec<GeluTanh, 4>(x, out, rows, h, stride_xr);
}

extern "C" __global__ void geglu_packed_kernel_scalar(const __nv_bfloat16 *__restrict__ x,
                                                      __nv_bfloat16 *__restrict__ out,
                                                      int rows, int h, long long stride_xr)
{
    gated_packed_scalar<GeluTanh>(x, out, rows, h, stride_xr);
}
