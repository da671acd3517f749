// Reference CUDA dequantization: the perf bar of lab12's two exercises (hidden from students).
//
// Byte ledgers (lab.toml's `bytes`):
//   dequant_int8: read w once (1 byte a weight) and one bfloat16 scale per row, write out
//                 (2 bytes a weight): 3 * rows * cols + 2 * rows bytes.
//   dequant_int4: read the packed bytes once (half a byte a weight) and one bfloat16 scale per
//                 128 weights, write out: rows * cols / 2 + 2 * rows * cols / 128
//                 + 2 * rows * cols bytes, 80% of it the output.
//
// Arithmetic: value * scale in float (exact: at most 16 significant bits), one
// round-to-nearest-even per output, two outputs at a time (__floats2bfloat162_rn).
//
// Both exercises walk rows the same way: blockIdx.y is the first row, then every gridDim.y-th
// (a grid's y stops at 65535); blockIdx.x and threadIdx.x pick chunks of that row, neighbouring
// threads on neighbouring chunks; each thread issues all VEC of its loads before any store.
//
// Kernels (extern "C", built by the macros at the end; the CPU backend finds macro-built kernels
// by preprocessing the source):
//   dequant_int8_kernel_v<VEC>          16 int8 (one uint4) per chunk; needs 16-byte aligned
//                                       rows (cols and w.stride(0) multiples of 16)
//   dequant_int8_kernel_scalar          any cols and stride: one weight per thread
//   dequant_int4_kernel_b<BYTES>_v<VEC> BYTES packed bytes (2 * BYTES weights) per chunk, loaded
//                                       as one 4-, 8- or 16-byte access; needs cols % 128 == 0
//                                       and packed rows aligned to BYTES
// VEC in 1 / 2 / 4, BYTES in 4 / 8 / 16.

#include <cuda_bf16.h>

// ------------------------------------------------------------------------------------ int8

// 16 int8 weights (one uint4) times their row's scale: 16 bfloat16, two uint4 at dst.
__device__ __forceinline__ void int8_chunk(uint4 v, float s, uint4 *dst)
{
    const signed char *q = reinterpret_cast<const signed char *>(&v);
    uint4 o[2];
    __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(o);
#pragma unroll
    for (int k = 0; k < 8; ++k) o2[k] = __floats2bfloat162_rn(q[2 * k] * s, q[2 * k + 1] * s);
    dst[0] = o[0];
    dst[1] = o[1];
}

template <int VEC>
__device__ __forceinline__ void int8_rows(const signed char *__restrict__ w,
                                          const __nv_bfloat16 *__restrict__ scale,
                                          __nv_bfloat16 *__restrict__ out, int rows, int cols,
                                          long long stride_wr)
{
    const int chunks = cols / 16;
    const int first = blockIdx.x * blockDim.x * VEC + threadIdx.x;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const uint4 *src = reinterpret_cast<const uint4 *>(w + (long long)row * stride_wr);
        uint4 *dst = reinterpret_cast<uint4 *>(out + (long long)row * cols);
        const float s = __bfloat162float(scale[row]);
        uint4 v[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = first + k * blockDim.x;
            if (c < chunks) v[k] = __ldg(src + c);  // the row's last block runs past its end
        }
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = first + k * blockDim.x;
            if (c < chunks) int8_chunk(v[k], s, dst + 2 * c);
        }
    }
}

extern "C" __global__ void dequant_int8_kernel_scalar(const signed char *__restrict__ w,
                                                      const __nv_bfloat16 *__restrict__ scale,
                                                      __nv_bfloat16 *__restrict__ out, int rows,
                                                      int cols, long long stride_wr)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;  // the row's last block runs past its end
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        out[(long long)row * cols + c] =
            __float2bfloat16_rn(w[(long long)row * stride_wr + c] * __bfloat162float(scale[row]));
    }
}

// ------------------------------------------------------------------------------------ int4

// The packed chunk a thread loads in one access: 4, 8 or 16 bytes.
template <int BYTES> struct Chunk;
template <> struct Chunk<4> { typedef unsigned type; };
template <> struct Chunk<8> { typedef uint2 type; };
template <> struct Chunk<16> { typedef uint4 type; };

// float(n - 8) for a nibble n without an int-to-float conversion: 0x4B000000 | n is the float
// 2^23 + n (n in the low mantissa bits), and 2^23 + n - (2^23 + 8) = n - 8 exactly.
__device__ __forceinline__ float nibble_value(unsigned n)
{
    return __int_as_float(0x4B000000 | n) - 8388616.0f;
}

// BYTES packed bytes times their group's scale: 2 * BYTES bfloat16, BYTES / 4 uint4 at dst.
// Byte j of the chunk gives elements 2j (low nibble) and 2j + 1 (high nibble): one bf16 pair.
template <int BYTES>
__device__ __forceinline__ void int4_chunk(typename Chunk<BYTES>::type v, float s, uint4 *dst)
{
    const unsigned *words = reinterpret_cast<const unsigned *>(&v);  // little-endian words
    uint4 o[BYTES / 4];
    __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(o);
#pragma unroll
    for (int i = 0; i < BYTES / 4; ++i) {
#pragma unroll
        for (int b = 0; b < 4; ++b) {  // byte b of word i: bits 8b .. 8b + 7
            const float lo = nibble_value((words[i] >> (8 * b)) & 0xF);
            const float hi = nibble_value((words[i] >> (8 * b + 4)) & 0xF);
            o2[4 * i + b] = __floats2bfloat162_rn(lo * s, hi * s);
        }
    }
#pragma unroll
    for (int i = 0; i < BYTES / 4; ++i) dst[i] = o[i];
}

template <int BYTES, int VEC>
__device__ __forceinline__ void int4_rows(const unsigned char *__restrict__ packed,
                                          const __nv_bfloat16 *__restrict__ scale,
                                          __nv_bfloat16 *__restrict__ out, int rows, int cols,
                                          long long stride_pr, long long stride_sr)
{
    typedef typename Chunk<BYTES>::type T;
    constexpr int GROUP_BYTES = 64;  // 128 weights: a chunk never straddles two groups
    const int chunks = cols / (2 * BYTES);
    const int first = blockIdx.x * blockDim.x * VEC + threadIdx.x;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const T *src = reinterpret_cast<const T *>(packed + (long long)row * stride_pr);
        const __nv_bfloat16 *srow = scale + (long long)row * stride_sr;
        uint4 *dst = reinterpret_cast<uint4 *>(out + (long long)row * cols);
        T v[VEC];
        float s[VEC];
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = first + k * blockDim.x;
            if (c < chunks) {  // the row's last block runs past its end
                v[k] = __ldg(src + c);
                s[k] = __bfloat162float(srow[c * BYTES / GROUP_BYTES]);
            }
        }
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            const int c = first + k * blockDim.x;
            if (c < chunks) int4_chunk<BYTES>(v[k], s[k], dst + c * (BYTES / 4));
        }
    }
}

#define INT8_KERNEL(VEC)                                                                        \
    extern "C" __global__ void dequant_int8_kernel_v##VEC(                                      \
        const signed char *__restrict__ w, const __nv_bfloat16 *__restrict__ scale,             \
        __nv_bfloat16 *__restrict__ out, int rows, int cols, long long stride_wr)               \
    {                                                                                           \
        int8_rows<VEC>(w, scale, out, rows, cols, stride_wr);                                   \
    }

#define INT4_KERNEL(BYTES, VEC)                                                                 \
    extern "C" __global__ void dequant_int4_kernel_b##BYTES##_v##VEC(                           \
        const unsigned char *__restrict__ packed, const __nv_bfloat16 *__restrict__ scale,      \
        __nv_bfloat16 *__restrict__ out, int rows, int cols, long long stride_pr,               \
        long long stride_sr)                                                                    \
    {                                                                                           \
        int4_rows<BYTES, VEC>(packed, scale, out, rows, cols, stride_pr, stride_sr);            \
    }

INT8_KERNEL(1)
INT8_KERNEL(2)
INT8_KERNEL(4)
INT4_KERNEL(4, 1)
INT4_KERNEL(4, 2)
INT4_KERNEL(4, 4)
INT4_KERNEL(8, 1)
INT4_KERNEL(8, 2)
INT4_KERNEL(8, 4)
INT4_KERNEL(16, 1)
INT4_KERNEL(16, 2)
INT4_KERNEL(16, 4)
