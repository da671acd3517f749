// Reference CUDA kernels of lab13's permutations: the perf bar (hidden from students).
// Byte ledgers (lab.toml's bytes): reverse reads x and writes out once, 2 * n * sizeof(T);
// interleave and deinterleave read and write 2n elements each, 4 * n * sizeof(T); reverse in
// place: the launcher's copy (2n) plus the swap (2n), 4 * n * sizeof(T).
//
// 16 bytes wide on both sides; the launch constants in permute_cuda.py were swept on an H100
// (2026-12-06, benchmarks/tune_references.py lab13).
//
// Each thread moves one 16-byte chunk (uint4) of the output side, PACK = 16 / sizeof(T)
// elements, with uint4 loads and stores only; the first threads of the grid then do the
// scalar tail. A permutation never looks at a value: T is unsigned int (float32) or unsigned
// short (float16, bfloat16). Kernels: <op>_kernel_b32 and <op>_kernel_b16 (written out one by
// one: the CPU backend finds kernels by reading the source).

#ifndef NARROW
#define NARROW 0  // 1: interleave and deinterleave move 8 bytes a thread on their narrow side
#endif            // (see below); permute_cuda.py prepends the define

template <class T> __device__ __forceinline__ uint4 load_chunk(const T *p, long long chunk)
{
    return __ldg(reinterpret_cast<const uint4 *>(p) + chunk);
}

// ---------------------------------------------------------------- reverse
// out's chunk i is x[q * PACK + R ... q * PACK + R + PACK - 1] reversed, q = n / PACK - 1 - i,
// R = n % PACK: the last PACK - R elements of x's chunk q and the first R of chunk q + 1. R is
// the same for every thread; as a template argument it keeps buf's indices constant, so buf
// stays in registers (a runtime index would put it in local memory).
template <class T, int R>
__device__ __forceinline__ void reverse_chunk(const T *__restrict__ x, T *__restrict__ out,
                                              long long i, long long n_chunks)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    if constexpr (R < PACK) {
        long long q = n_chunks - 1 - i;
        uint4 buf[2];
        buf[0] = load_chunk(x, q);
        if constexpr (R != 0) {
            if (q + 1 < n_chunks) {
                buf[1] = load_chunk(x, q + 1);
            } else {  // x's partial last chunk: its R elements one by one
                T *part = reinterpret_cast<T *>(&buf[1]);
#pragma unroll
                for (int k = 0; k < R; ++k) part[k] = x[(q + 1) * PACK + k];
            }
        }
        const T *src = reinterpret_cast<const T *>(buf);
        uint4 c;
        T *ys = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) ys[k] = src[R + PACK - 1 - k];
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
}

template <class T>
__device__ __forceinline__ void reverse(const T *__restrict__ x, T *__restrict__ out,
                                        long long n)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long n_chunks = n / PACK;
    if (i < n_chunks) {
        switch ((int)(n % PACK)) {
        case 0: reverse_chunk<T, 0>(x, out, i, n_chunks); break;
        case 1: reverse_chunk<T, 1>(x, out, i, n_chunks); break;
        case 2: reverse_chunk<T, 2>(x, out, i, n_chunks); break;
        case 3: reverse_chunk<T, 3>(x, out, i, n_chunks); break;
        case 4: reverse_chunk<T, 4>(x, out, i, n_chunks); break;
        case 5: reverse_chunk<T, 5>(x, out, i, n_chunks); break;
        case 6: reverse_chunk<T, 6>(x, out, i, n_chunks); break;
        default: reverse_chunk<T, 7>(x, out, i, n_chunks); break;
        }
    }
    long long tail = n_chunks * PACK + i;  // out's last n % PACK: x's first, reversed
    if (tail < n) out[tail] = x[n - 1 - tail];
}

// ---------------------------------------------------------------- interleave
// NARROW 0 (the notebook's solution): thread i takes 16 bytes of a and of b and stores the 32
// bytes of pairs as two uint4, so each warp store covers every other 16 bytes of 1 KiB (each
// 32-byte sector half written by each of the two stores). NARROW 1: thread j builds out's
// chunk j from 8 bytes (a uint2) of a and of b: every access is fully coalesced, the loads
// half as wide. Which is faster on the course GPU is for the sweep to say (docs/perf.md saw
// lab12's int4 stores spread over 2 KiB per warp move half the bandwidth of dense ones).
template <class T>
__device__ __forceinline__ void interleave_narrow(const T *__restrict__ a,
                                                  const T *__restrict__ b,
                                                  T *__restrict__ out, long long n)
{
    constexpr int HALF = sizeof(uint2) / sizeof(T);  // pairs per 16-byte chunk of out
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long n_chunks = n / HALF;  // whole chunks of out
    if (j < n_chunks) {
        uint2 va = __ldg(reinterpret_cast<const uint2 *>(a) + j);
        uint2 vb = __ldg(reinterpret_cast<const uint2 *>(b) + j);
        const T *as = reinterpret_cast<const T *>(&va);
        const T *bs = reinterpret_cast<const T *>(&vb);
        uint4 o;
        T *ys = reinterpret_cast<T *>(&o);
#pragma unroll
        for (int k = 0; k < HALF; ++k) {
            ys[2 * k] = as[k];
            ys[2 * k + 1] = bs[k];
        }
        reinterpret_cast<uint4 *>(out)[j] = o;
    }
    long long tail = n_chunks * HALF + j;
    if (tail < n) {
        out[2 * tail] = a[tail];
        out[2 * tail + 1] = b[tail];
    }
}

template <class T>
__device__ __forceinline__ void interleave(const T *__restrict__ a, const T *__restrict__ b,
                                           T *__restrict__ out, long long n)
{
    if (NARROW) {
        interleave_narrow(a, b, out, n);
        return;
    }
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 va = load_chunk(a, i), vb = load_chunk(b, i);
        const T *as = reinterpret_cast<const T *>(&va);
        const T *bs = reinterpret_cast<const T *>(&vb);
        uint4 o[2];
        T *ys = reinterpret_cast<T *>(o);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            ys[2 * k] = as[k];
            ys[2 * k + 1] = bs[k];
        }
        reinterpret_cast<uint4 *>(out)[2 * i] = o[0];
        reinterpret_cast<uint4 *>(out)[2 * i + 1] = o[1];
    }
    long long tail = n_chunks * PACK + i;
    if (tail < n) {
        out[2 * tail] = a[tail];
        out[2 * tail + 1] = b[tail];
    }
}

// ---------------------------------------------------------------- deinterleave
// NARROW 1: thread j splits x's chunk j into 8 bytes (a uint2) of a and of b (see interleave).
template <class T>
__device__ __forceinline__ void deinterleave_narrow(const T *__restrict__ x, T *__restrict__ a,
                                                    T *__restrict__ b, long long n)
{
    constexpr int HALF = sizeof(uint2) / sizeof(T);  // pairs per 16-byte chunk of x
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long n_chunks = n / HALF;  // whole chunks of x
    if (j < n_chunks) {
        uint4 v = load_chunk(x, j);
        const T *xs = reinterpret_cast<const T *>(&v);
        uint2 va, vb;
        T *as = reinterpret_cast<T *>(&va);
        T *bs = reinterpret_cast<T *>(&vb);
#pragma unroll
        for (int k = 0; k < HALF; ++k) {
            as[k] = xs[2 * k];
            bs[k] = xs[2 * k + 1];
        }
        reinterpret_cast<uint2 *>(a)[j] = va;
        reinterpret_cast<uint2 *>(b)[j] = vb;
    }
    long long tail = n_chunks * HALF + j;
    if (tail < n) {
        a[tail] = x[2 * tail];
        b[tail] = x[2 * tail + 1];
    }
}

template <class T>
__device__ __forceinline__ void deinterleave(const T *__restrict__ x, T *__restrict__ a,
                                             T *__restrict__ b, long long n)
{
    if (NARROW) {
        deinterleave_narrow(x, a, b, n);
        return;
    }
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 v[2] = {load_chunk(x, 2 * i), load_chunk(x, 2 * i + 1)};
        const T *xs = reinterpret_cast<const T *>(v);
        uint4 va, vb;
        T *as = reinterpret_cast<T *>(&va);
        T *bs = reinterpret_cast<T *>(&vb);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            as[k] = xs[2 * k];
            bs[k] = xs[2 * k + 1];
        }
        reinterpret_cast<uint4 *>(a)[i] = va;
        reinterpret_cast<uint4 *>(b)[i] = vb;
    }
    long long tail = n_chunks * PACK + i;
    if (tail < n) {
        a[tail] = x[2 * tail];
        b[tail] = x[2 * tail + 1];
    }
}

// ---------------------------------------------------------------- reverse in place
// out reversed where it lies (the launcher has copied x into it). When PACK divides n, thread
// t < n / 2 / PACK swaps the front's chunk t with its mirror, the back's chunk n / PACK - 1 - t
// (also on a 16-byte boundary), each turned around in registers: both read before either is
// written, no other thread touches them. The pairs the chunks leave around the middle (fewer
// than PACK), or every pair when PACK does not divide n, go one per thread after the chunk
// threads; the middle of an odd n stays. The scalar kernel alone (one pair per thread, both
// ends coalesced but 2 or 4 bytes wide) ran at 70% of the copy roof in 16-bit on an H100
// (2026-12-06), this one at 98%.
template <class T>
__device__ __forceinline__ void swap_ends(T *__restrict__ out, long long n)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long chunks = n % PACK == 0 ? n / 2 / PACK : 0;
    if (t < chunks) {
        uint4 *v = reinterpret_cast<uint4 *>(out);
        long long u = n / PACK - 1 - t;
        uint4 front = v[t], back = v[u], new_front, new_back;
        const T *fs = reinterpret_cast<const T *>(&front);
        const T *bs = reinterpret_cast<const T *>(&back);
        T *nf = reinterpret_cast<T *>(&new_front);
        T *nb = reinterpret_cast<T *>(&new_back);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            nf[k] = bs[PACK - 1 - k];
            nb[k] = fs[PACK - 1 - k];
        }
        v[t] = new_front;
        v[u] = new_back;
    }
    long long i = chunks * PACK + t;
    if (i < n / 2) {
        long long j = n - 1 - i;
        T a = out[i];
        T b = out[j];
        out[i] = b;
        out[j] = a;
    }
}

// ---------------------------------------------------------------- the kernels
extern "C" __global__ void flip_kernel_b32(const unsigned int *__restrict__ x,
                                              unsigned int *__restrict__ out, long long n)
{
    reverse(x, out, n);
}

extern "C" __global__ void flip_kernel_b16(const unsigned short *__restrict__ x,
                                              unsigned short *__restrict__ out, long long n)
{
    reverse(x, out, n);
}

extern "C" __global__ void flip_inplace_kernel_b32(unsigned int *__restrict__ out, long long n)
{
    swap_ends(out, n);
}

extern "C" __global__ void flip_inplace_kernel_b16(unsigned short *__restrict__ out, long long n)
{
    swap_ends(out, n);
}

extern "C" __global__ void interleave_kernel_b32(const unsigned int *__restrict__ a,
                                                 const unsigned int *__restrict__ b,
                                                 unsigned int *__restrict__ out, long long n)
{
    interleave(a, b, out, n);
}

extern "C" __global__ void interleave_kernel_b16(const unsigned short *__restrict__ a,
                                                 const unsigned short *__restrict__ b,
                                                 unsigned short *__restrict__ out, long long n)
{
    interleave(a, b, out, n);
}

extern "C" __global__ void deinterleave_kernel_b32(const unsigned int *__restrict__ x,
                                                   unsigned int *__restrict__ a,
                                                   unsigned int *__restrict__ b, long long n)
{
    deinterleave(x, a, b, n);
}

extern "C" __global__ void deinterleave_kernel_b16(const unsigned short *__restrict__ x,
                                                   unsigned short *__restrict__ a,
                                                   unsigned short *__restrict__ b, long long n)
{
    deinterleave(x, a, b, n);
}
