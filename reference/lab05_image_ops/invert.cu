// Reference CUDA RGBA invert: the perf bar for lab05's invert (hidden from students).
// Byte ledger: read 4 bytes per pixel once, write 4 bytes per pixel once: 8 * n_pixels bytes.
//
// One pixel is one 32-bit word, R in its low byte (little-endian): XOR with 0x00FFFFFF
// inverts R, G, B (255 - v == v ^ 0xFF) and keeps A. Each thread moves VEC uint4 (4 pixels
// each), blockDim.x uint4 apart (coalesced); the grid's first threads then do the n % 4
// pixels after the last whole uint4, one word each.
//
// Kernels: invert_kernel_v<VEC>, VEC in 1 / 2 / 4 (written out: the CPU backend finds kernels
// by reading the source, not macros).

#define FLIP 0x00FFFFFFu

template <int VEC>
__device__ __forceinline__ void invert_body(const unsigned *__restrict__ rgba,
                                            unsigned *__restrict__ out, long long n_pixels)
{
    const long long n_chunks = n_pixels / 4;
    const uint4 *src = reinterpret_cast<const uint4 *>(rgba);
    uint4 *dst = reinterpret_cast<uint4 *>(out);
    const long long first = (long long)blockIdx.x * blockDim.x * VEC + threadIdx.x;
    uint4 v[VEC];  // every load first: 16 * VEC bytes in flight per thread
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        const long long i = first + (long long)k * blockDim.x;
        if (i < n_chunks) v[k] = __ldg(src + i);  // the last block runs past the end
    }
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        const long long i = first + (long long)k * blockDim.x;
        if (i < n_chunks) {
            dst[i] = make_uint4(v[k].x ^ FLIP, v[k].y ^ FLIP, v[k].z ^ FLIP, v[k].w ^ FLIP);
        }
    }
    const long long tail = n_chunks * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n_pixels) out[tail] = rgba[tail] ^ FLIP;  // n % 4 leftovers
}

extern "C" __global__ void invert_kernel_v1(const unsigned *__restrict__ rgba,
                                            unsigned *__restrict__ out, long long n_pixels)
{
    invert_body<1>(rgba, out, n_pixels);
}

extern "C" __global__ void invert_kernel_v2(const unsigned *__restrict__ rgba,
                                            unsigned *__restrict__ out, long long n_pixels)
{
    invert_body<2>(rgba, out, n_pixels);
}

extern "C" __global__ void invert_kernel_v4(const unsigned *__restrict__ rgba,
                                            unsigned *__restrict__ out, long long n_pixels)
{
    invert_body<4>(rgba, out, n_pixels);
}
