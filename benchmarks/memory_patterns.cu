// Memory patterns for a 16-bit relu (benchmarks/memory_patterns.py): which way of moving a
// stream that is read once and written once is fastest on a GPU, against torch's own kernel.
// Every kernel computes relu on pairs of halves or bfloat16s (__hmax2_nan: NaN kept, as torch)
// and takes nch, the number of 16-byte chunks of x. Macros, set by the launcher:
//   LD      0: __ldg; 1: ld.global.nc with an L2::256B prefetch hint
//   UNROLL  chunks a thread keeps in flight (every load issued before the first store)
//   TILE, STAGES  the bulk-copy kernel's tile bytes and shared buffers
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef LD
#define LD 0
#endif
#ifndef TILE
#define TILE 8192
#endif
#ifndef STAGES
#define STAGES 4
#endif

__device__ __forceinline__ uint4 load(const uint4 *p)
{
#if LD == 1
    uint4 r;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
    return r;
#else
    return __ldg(p);
#endif
}

__device__ __forceinline__ __half2 zero2(__half2) { return __float2half2_rn(0.0f); }
__device__ __forceinline__ __nv_bfloat162 zero2(__nv_bfloat162) { return __float2bfloat162_rn(0.0f); }

template <class T2> __device__ __forceinline__ uint4 relu4(uint4 a)
{
    T2 *p = reinterpret_cast<T2 *>(&a);
    const T2 z = zero2(T2{});
#pragma unroll
    for (int k = 0; k < 4; ++k) p[k] = __hmax2_nan(p[k], z);
    return a;
}

// UNROLL chunks of one thread, from chunk `first` a block apart: every load, then every store
template <class T2> __device__ __forceinline__ void move(const uint4 *x, uint4 *o, long long first,
                                                        long long nch)
{
    uint4 a[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        long long i = first + (long long)k * blockDim.x;
        if (i < nch) a[k] = load(x + i);
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        long long i = first + (long long)k * blockDim.x;
        if (i < nch) o[i] = relu4<T2>(a[k]);
    }
}

// one block = blockDim.x * UNROLL chunks (the reference's pattern at UNROLL = 1)
template <class T2> __device__ void flat(const uint4 *x, uint4 *o, long long nch)
{
    move<T2>(x, o, (long long)blockIdx.x * blockDim.x * UNROLL + threadIdx.x, nch);
}

// persistent: a grid of a few blocks per SM strides over the chunks, UNROLL in flight a thread
template <class T2> __device__ void stride(const uint4 *x, uint4 *o, long long nch)
{
    const long long step = (long long)gridDim.x * blockDim.x * UNROLL;
    for (long long base = (long long)blockIdx.x * blockDim.x * UNROLL + threadIdx.x; base < nch;
         base += step)
        move<T2>(x, o, base, nch);
}

// bulk copies (TMA, 1-D): tiles of TILE bytes through STAGES shared buffers; thread 0 issues
// the copies, every thread maps the tile in shared memory. nch must be a multiple of TILE/16.
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bulk_load(unsigned dst, const void *src, unsigned bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(TILE)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
            "r"(dst), "l"(src), "r"(TILE), "r"(bar)
        : "memory");
}
__device__ __forceinline__ void wait_parity(unsigned bar, unsigned phase)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(phase) : "memory");
    }
}

template <class T2> __device__ void bulk(const uint4 *x, uint4 *o, long long nch)
{
    constexpr int PER = TILE / 16;
    __shared__ __align__(128) uint4 buf[STAGES][PER];
    __shared__ __align__(8) unsigned long long bar[STAGES];
    const long long ntiles = nch / PER;
    const long long count = blockIdx.x < ntiles ? (ntiles - blockIdx.x + gridDim.x - 1) / gridDim.x : 0;
    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int s = 0; s < STAGES; ++s)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (tid == 0)
        for (long long j = 0; j < STAGES - 1 && j < count; ++j)
            bulk_load(smem_addr(buf[j]), x + (blockIdx.x + j * gridDim.x) * PER, smem_addr(&bar[j]));
    for (long long j = 0; j < count; ++j) {
        const int s = j % STAGES;
        wait_parity(smem_addr(&bar[s]), (unsigned)((j / STAGES) & 1));
        for (int c = tid; c < PER; c += blockDim.x) buf[s][c] = relu4<T2>(buf[s][c]);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (tid == 0) {
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                             o + (blockIdx.x + j * gridDim.x) * PER),
                         "r"(smem_addr(buf[s])), "r"(TILE)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");  // store j-1 read
            const long long next = j + STAGES - 1;
            if (next < count) {
                const int t = next % STAGES;  // the stage of tile j - 1
                bulk_load(smem_addr(buf[t]), x + (blockIdx.x + next * gridDim.x) * PER,
                          smem_addr(&bar[t]));
            }
        }
    }
    if (tid == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// 32-bit index arithmetic (nch < 2^31), as torch's kernels below 2^31 elements
template <class T2> __device__ void flat32(const uint4 *x, uint4 *o, long long nch)
{
    const unsigned n = (unsigned)nch;
    const unsigned first = blockIdx.x * blockDim.x * UNROLL + threadIdx.x;
    uint4 a[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) a[k] = load(x + i);
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) o[i] = relu4<T2>(a[k]);
    }
}

// 8-byte chunks (uint2: two pairs a thread), 32-bit indices; nch counts 16-byte chunks
template <class T2> __device__ void flat8(const uint4 *x16, uint4 *o16, long long nch)
{
    const uint2 *x = reinterpret_cast<const uint2 *>(x16);
    uint2 *o = reinterpret_cast<uint2 *>(o16);
    const unsigned n = (unsigned)(2 * nch);
    const unsigned first = blockIdx.x * blockDim.x * UNROLL + threadIdx.x;
    uint2 a[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) a[k] = __ldg(x + i);
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) {
            uint4 w = make_uint4(a[k].x, a[k].y, 0u, 0u);
            w = relu4<T2>(w);
            o[i] = make_uint2(w.x, w.y);
        }
    }
}

#define KERNELS(NAME)                                                                          \
    extern "C" __global__ void NAME##_f16(const uint4 *x, uint4 *o, long long nch)             \
    {                                                                                          \
        NAME<__half2>(x, o, nch);                                                              \
    }                                                                                          \
    extern "C" __global__ void NAME##_bf16(const uint4 *x, uint4 *o, long long nch)            \
    {                                                                                          \
        NAME<__nv_bfloat162>(x, o, nch);                                                       \
    }
KERNELS(flat)
KERNELS(stride)
KERNELS(bulk)
KERNELS(flat32)
KERNELS(flat8)
