// Reference CUDA linear layer with a fused GELU for lab15 (hidden from students): the perf bar of
// linear_gelu, y = gelu_tanh(x @ w.T + b) in bfloat16. The GEMM is the shared pipelined WMMA
// body, reference/common/linear_wmma.cuh (this file is compiled after its text:
// linear_gelu_cuda.py): __nv_bfloat16 fragments, a float accumulator, cp.async K tiles STAGES
// deep; here only the epilogue and the kernels.
//
// Work (lab.toml's `flops`): 2 m n k. Byte ledger of the minimum: read x, w and b once, write
// y once, 2 (m k + n k + n + m n) bytes. This kernel reads a tile of x once per tile column of
// y and a tile of w once per tile row (BM BN / (BM + BN) FLOPs per byte fetched: 85 at
// 128 x 256; the grouped numbering keeps most re-reads in the L2), b once per tile row, and
// writes y once, 16 bytes per store.
//
// Two regimes, two sets of tiles (linear_gelu_cuda.py picks by m):
//   - decode (m <= 128; the perf shape m = 64, n = k = 4096): the 32 MB of w dominate and the
//     products are few; what matters is how many bytes of w are in flight across the SMs. BM =
//     64 covers m in one or two tile rows; BN = 32 gives 128 blocks at n = 4096 (one per SM of
//     an H100's 132), BN = 64 half as many with twice the bytes each; 4 warps, 4 buffers of BK =
//     64 or 128 (3 K tiles in flight; 54 to 136 KiB of shared memory a block).
//   - prefill (m > 128; the perf shape 4096^3): compute-bound, lab10's tiles: 128 x 256 with 8
//     warps of 64 x 64 (one block per SM: 255 registers a thread), 128 x 128 with 4 warps of
//     64 x 64 (two blocks per SM, where their shared memory fits: one block's barrier is the
//     other's work).
// Rows that are not 16-byte aligned (w padded by an odd count, an odd k) take one element-wise
// kernel instead (linear_gelu_kernel_unaligned): correct at any shape, slow.
//
// The epilogue in float32 on the accumulator: v = acc + b[col], then GELU's tanh form written
// as v * sigmoid(2 u): 0.5 v (1 + tanh(u)) = v / (1 + exp(-2 u)), u = sqrt(2 / pi) (v + 0.044715
// v^3): the same function without tanh's cancellation at 1 + tanh(u) ~ 0 (v below about -3),
// one __expf and one __fdividef instead of tanhf (__expf errs by 2 + 1.17 |2 u| ulp, __fdividef
// by 2: under 4e-6 relative for |v| <= 6, far below bfloat16's half ulp, 3.9e-3). Not an IEEE
// division: its slow path is a called subroutine, whose calling convention spilled registers
// at 255. exp(-2 u) passes 2^126 for v below about -10, and __fdividef then returns 0, where
// gelu is below 1e-30 (atol 1e-4). One rounding to bfloat16.

// The bias and GELU of one element of y (row unused: the bias is per column).
struct BiasGelu {
    const __nv_bfloat16 *__restrict__ bias;  // [n]

    __device__ __forceinline__ float operator()(float acc, int, int col) const
    {
        const float v = acc + __bfloat162float(bias[col]);
        const float u = 0.7978845608f * (v + 0.044715f * v * v * v);  // sqrt(2 / pi) (...)
        return __fdividef(v, 1.0f + __expf(-2.0f * u));
    }
};

// One kernel per (tile, warps, BK, STAGES) of TUNE in linear_gelu_cuda.py, named
// linear_gelu_kernel_<BM>x<BN>_<WARPS_M>x<WARPS_N>_<BK>_<STAGES>. MIN_BLOCKS (blocks per SM
// for __launch_bounds__): 2 for 128 x 128 with 4 warps (up to 255 registers a thread still),
// 1 for the others. ASYNC: 16-byte cp.async copies (aligned rows) or element-wise ones.
#define LINEAR_GELU_KERNEL(NAME, BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_, ASYNC_)                \
    extern "C" __global__ void __launch_bounds__(WM_ * WN_ * 32, MIN_BLOCKS_)                      \
        NAME(const __nv_bfloat16 *__restrict__ x, /* m x k, rows stride_xm apart */                \
             const __nv_bfloat16 *__restrict__ w, /* n x k, rows stride_wn apart */                \
             const __nv_bfloat16 *__restrict__ b, /* [n] */                                        \
             __nv_bfloat16 *__restrict__ y,       /* m x n, contiguous */                          \
             int m, int n, int k, int stride_xm, int stride_wn, int group_m)                       \
    {                                                                                              \
        extern __shared__ __align__(128) unsigned char smem[];                                     \
        linear_wmma::gemm<__nv_bfloat16, BM_, BN_, BK_, WM_, WN_, ST_, MIN_BLOCKS_, ASYNC_>(       \
            smem, x, w, y, m, n, k, stride_xm, stride_wn, group_m, BiasGelu{b});                   \
    }
#define LINEAR_GELU_TUNED(BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_)                               \
    LINEAR_GELU_KERNEL(linear_gelu_kernel_##BM_##x##BN_##_##WM_##x##WN_##_##BK_##_##ST_, BM_, BN_, \
                       WM_, WN_, BK_, ST_, MIN_BLOCKS_, true)

// Decode: each tile at BK 64 and 128, 4 stages.
LINEAR_GELU_TUNED(64, 32, 2, 2, 64, 4, 1)
LINEAR_GELU_TUNED(64, 32, 2, 2, 128, 4, 1)
LINEAR_GELU_TUNED(64, 64, 2, 2, 64, 4, 1)
LINEAR_GELU_TUNED(64, 64, 2, 2, 128, 4, 1)
// Prefill: each tile at BK 32 and 64, 3 and 4 stages.
LINEAR_GELU_TUNED(128, 256, 2, 4, 32, 3, 1)
LINEAR_GELU_TUNED(128, 256, 2, 4, 32, 4, 1)
LINEAR_GELU_TUNED(128, 256, 2, 4, 64, 3, 1)
LINEAR_GELU_TUNED(128, 256, 2, 4, 64, 4, 1)
LINEAR_GELU_TUNED(128, 128, 2, 2, 32, 3, 2)
LINEAR_GELU_TUNED(128, 128, 2, 2, 32, 4, 2)
LINEAR_GELU_TUNED(128, 128, 2, 2, 64, 3, 2)
LINEAR_GELU_TUNED(128, 128, 2, 2, 64, 4, 2)
// Unaligned rows: 64 x 64, 4 warps, BK 32, 2 buffers (the copies are synchronous).
LINEAR_GELU_KERNEL(linear_gelu_kernel_unaligned, 64, 64, 2, 2, 32, 2, 1, false)
