// Reference CUDA RoPE (NeoX, rotate half) for lab11 (hidden from students): the perf bar of
// both exercises. `rope` is `rope_qk` with no k (kv_heads = 0).
//
// Byte ledger (lab.toml's `bytes`): read q and k once, write q_out and k_out once (bfloat16),
// read the float32 tables once: 2 * tokens * (heads + kv_heads) * head_dim * 2 bytes
// + 2 * tokens * half_dim * 4 bytes. A table row is read by every head of its token: from L1
// after the first (the block's threads of one token run together).
//
// Block (x, y) threads: threadIdx.y picks one of blockDim.y tokens, threadIdx.x walks that
// token's items, blockDim.x apart. Tokens on grid x (2^31 - 1 blocks, no 65535 limit).
//   *_vec     an item is one head's 16-byte chunk of x1 (8 bfloat16) and the matching chunk of
//             x2: two uint4 loads, 8 cos and 8 sin as float4 pairs, two uint4 stores. Needs
//             half_dim % 8 == 0, every stride % 8 == 0 and 16-byte aligned pointers (the
//             launcher checks).
//   *_scalar  an item is one pair (x1[i], x2[i]): any half_dim, stride and alignment.
// Items numbered q's heads first, then k's: a warp's items are neighbouring chunks of one head
// and the next (coalesced), within one tensor but at the q / k seam.
// Arithmetic in float (fmaf), one round-to-nearest-even per output.

#include <cuda_bf16.h>

struct Rows {  // where one head of one token is read and written
    const __nv_bfloat16 *src;
    __nv_bfloat16 *dst;
};

__device__ __forceinline__ Rows head_rows(const __nv_bfloat16 *__restrict__ q,
                                          const __nv_bfloat16 *__restrict__ k,
                                          __nv_bfloat16 *__restrict__ q_out,
                                          __nv_bfloat16 *__restrict__ k_out, long long t, int h,
                                          int heads, int kv_heads, int half_dim,
                                          long long stride_qt, long long stride_qh,
                                          long long stride_kt, long long stride_kh)
{
    if (h < heads)
        return {q + t * stride_qt + h * stride_qh, q_out + (t * heads + h) * 2 * half_dim};
    h -= heads;
    return {k + t * stride_kt + h * stride_kh, k_out + (t * kv_heads + h) * 2 * half_dim};
}

extern "C" __global__ void rope_qk_kernel_vec(const __nv_bfloat16 *__restrict__ q,
                                              const __nv_bfloat16 *__restrict__ k,
                                              const float *__restrict__ cos,
                                              const float *__restrict__ sin,
                                              __nv_bfloat16 *__restrict__ q_out,
                                              __nv_bfloat16 *__restrict__ k_out, int tokens,
                                              int heads, int kv_heads, int half_dim,
                                              long long stride_qt, long long stride_qh,
                                              long long stride_kt, long long stride_kh)
{
    const long long t = (long long)blockIdx.x * blockDim.y + threadIdx.y;
    if (t >= tokens) return;  // the last block's rows of threads run past the last token
    const int chunks = half_dim / 8;  // 16-byte chunks per half
    const int items = (heads + kv_heads) * chunks;
    const float *c_row = cos + t * half_dim;
    const float *s_row = sin + t * half_dim;
    for (int i = threadIdx.x; i < items; i += blockDim.x) {
        const int h = i / chunks;
        const int j = (i - h * chunks) * 8;
        const Rows r = head_rows(q, k, q_out, k_out, t, h, heads, kv_heads, half_dim, stride_qt,
                                 stride_qh, stride_kt, stride_kh);
        const uint4 a = __ldg(reinterpret_cast<const uint4 *>(r.src + j));
        const uint4 b = __ldg(reinterpret_cast<const uint4 *>(r.src + half_dim + j));
        const float4 c0 = __ldg(reinterpret_cast<const float4 *>(c_row + j));
        const float4 c1 = __ldg(reinterpret_cast<const float4 *>(c_row + j + 4));
        const float4 s0 = __ldg(reinterpret_cast<const float4 *>(s_row + j));
        const float4 s1 = __ldg(reinterpret_cast<const float4 *>(s_row + j + 4));
        const float cf[8] = {c0.x, c0.y, c0.z, c0.w, c1.x, c1.y, c1.z, c1.w};
        const float sf[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
        const __nv_bfloat162 *a2 = reinterpret_cast<const __nv_bfloat162 *>(&a);
        const __nv_bfloat162 *b2 = reinterpret_cast<const __nv_bfloat162 *>(&b);
        uint4 o1, o2;
        __nv_bfloat162 *o1_2 = reinterpret_cast<__nv_bfloat162 *>(&o1);
        __nv_bfloat162 *o2_2 = reinterpret_cast<__nv_bfloat162 *>(&o2);
#pragma unroll
        for (int p = 0; p < 4; ++p) {
            const float2 x1 = __bfloat1622float2(a2[p]);
            const float2 x2 = __bfloat1622float2(b2[p]);
            const float ca = cf[2 * p], cb = cf[2 * p + 1], sa = sf[2 * p], sb = sf[2 * p + 1];
            o1_2[p] = __floats2bfloat162_rn(fmaf(x1.x, ca, -x2.x * sa), fmaf(x1.y, cb, -x2.y * sb));
            o2_2[p] = __floats2bfloat162_rn(fmaf(x2.x, ca, x1.x * sa), fmaf(x2.y, cb, x1.y * sb));
        }
        *reinterpret_cast<uint4 *>(r.dst + j) = o1;
        *reinterpret_cast<uint4 *>(r.dst + half_dim + j) = o2;
    }
}

extern "C" __global__ void rope_qk_kernel_scalar(const __nv_bfloat16 *__restrict__ q,
                                                 const __nv_bfloat16 *__restrict__ k,
                                                 const float *__restrict__ cos,
                                                 const float *__restrict__ sin,
                                                 __nv_bfloat16 *__restrict__ q_out,
                                                 __nv_bfloat16 *__restrict__ k_out, int tokens,
                                                 int heads, int kv_heads, int half_dim,
                                                 long long stride_qt, long long stride_qh,
                                                 long long stride_kt, long long stride_kh)
{
    const long long t = (long long)blockIdx.x * blockDim.y + threadIdx.y;
    if (t >= tokens) return;  // the last block's rows of threads run past the last token
    const int items = (heads + kv_heads) * half_dim;
    for (int i = threadIdx.x; i < items; i += blockDim.x) {
        const int h = i / half_dim;
        const int j = i - h * half_dim;
        const Rows r = head_rows(q, k, q_out, k_out, t, h, heads, kv_heads, half_dim, stride_qt,
                                 stride_qh, stride_kt, stride_kh);
        const float x1 = __bfloat162float(r.src[j]);
        const float x2 = __bfloat162float(r.src[half_dim + j]);
        const float c = cos[t * half_dim + j], s = sin[t * half_dim + j];
        r.dst[j] = __float2bfloat16_rn(fmaf(x1, c, -x2 * s));
        r.dst[half_dim + j] = __float2bfloat16_rn(fmaf(x2, c, x1 * s));
    }
}
