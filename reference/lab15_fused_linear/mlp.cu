// Reference CUDA gated MLP for lab15 (hidden from students): the perf bar of mlp,
// y = (silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T in bfloat16. Both GEMMs are the shared
// pipelined WMMA body, reference/common/linear_wmma.cuh (this file is compiled after its text:
// mlp_cuda.py): __nv_bfloat16 fragments, float accumulators, cp.async K tiles STAGES deep; here
// only the epilogues and the kernels.
//   mlp_gate_up_kernel_*: h = silu(x w_gate^T) * (x w_up^T), m x f. B's K tiles hold rows of
//     w_gate and w_up interleaved by 16 (linear_wmma::Interleaved): one pass over x's K tiles
//     feeds both products, a warp's gate and up accumulators of the same 16 columns of h sit
//     side by side, and SiluMul combines them in registers; h rounded once to bfloat16.
//   mlp_down_kernel_*: y = h w_down^T, the plain GEMM, each element rounded once.
//
// Work (lab.toml's `flops`): 3 x 2 m d f. Byte ledger of the minimum: read x and the three
// weights once and write y once, 2 (m d + 3 d f + m d) bytes, plus h written once and read once,
// 4 m f (the handoff between the two kernels; eager torch writes and reads g, u and silu(g)
// too, 12 m f more). These kernels read a K tile of x (of h) once per tile column of h (of y) and
// one of the weights once per tile row: BM BN / (BM + BN) FLOPs per byte fetched, 85 at a
// 128 x 256 tile (the gate/up kernel's 256 rows of B are 128 of each weight: it fetches what one
// GEMM of width 2 f would); the grouped numbering keeps most re-reads in the L2.
//
// Two regimes, two sets of tiles (mlp_cuda.py picks by m):
//   - decode (m <= 128; the perf shape m = 64, d = 4096, f = 11008): 270 MB of weights read
//     once for 17 GFLOP, x and h a few hundred KB (they stay in the L2): the time is the read of
//     the weights, and what matters is the bytes of them in flight across the SMs. BM = 64
//     covers m in one or two tile rows. Gate/up: B tiles of 64 rows (32 columns of h: 344 blocks
//     at f = 11008, 2.6 per SM of an H100's 132; three blocks fit an SM at BK 64), 4 warps of
//     32 x 32; or of 32 rows (16 columns, 688 blocks), 4 warps of 16 x 32. Down (k = f: long K
//     loops, few tiles): 64 x 32 tiles (128 blocks at d = 4096), or 64 x 16 (256 blocks, two per
//     SM), each K tile up to 256 deep: 3 x 32 x 512 bytes of w_down in flight per SM at 64 x 32.
//     4 buffers.
//   - prefill (m > 128; the perf shape m = 4096): compute-bound, lab10's tiles: 128 x 256 with
//     8 warps of 64 x 64 (one block per SM: 255 registers a thread; the gate/up kernel's h tile
//     is 128 x 128), 128 x 128 with 4 warps of 64 x 64 (two blocks per SM where their shared
//     memory fits). BK 32 or 64, 3 or 4 buffers.
// Rows that are not 16-byte aligned (a weight padded by an odd count, d or f not a multiple of
// 8) take an element-wise kernel instead (mlp_gate_up_kernel_unaligned, mlp_down_kernel_unaligned,
// each chosen by its own operands): correct at any shape, slow.
//
// The gate/up epilogue in float32 on the two accumulators: silu(g) u = g u / (1 + exp(-g)), with
// __expf (error 2 + 1.17 |g| ulp: g is of order 1 at these scales) and __fdividef (2 ulp): a few
// float32 ulp of h, far below bfloat16's half ulp (3.9e-3). Not expf and an IEEE division: the
// division's slow path is a called subroutine, whose calling convention spilled registers at 255
// in linear_gelu.cu. For g below about -88, exp(-g) is infinite and __fdividef returns -0, SiLU's
// limit (|silu(g)| < 1e-36 there).

// h from the two sums of one element (gate, up).
struct SiluMul {
    __device__ __forceinline__ float operator()(float g, float u) const
    {
        return __fdividef(g, 1.0f + __expf(-g)) * u;
    }
};

// y's elements as summed: one rounding, in the store.
struct Round {
    __device__ __forceinline__ float operator()(float acc, int, int) const { return acc; }
};

// One kernel of each kind per (tile, warps, BK, STAGES) of TUNE in mlp_cuda.py, named
// mlp_gate_up_kernel_<BM>x<BN>_<WARPS_M>x<WARPS_N>_<BK>_<STAGES> (BN: rows of B's tile, half
// of them w_gate's and half w_up's, BN / 2 columns of h) and mlp_down_kernel_<...> (BN columns of
// y). MIN_BLOCKS (blocks per SM for __launch_bounds__): 2 for 128 x 128 with 4 warps (up to 255
// registers a thread still), 1 for the others. ASYNC: 16-byte cp.async copies (aligned rows) or
// element-wise ones.
#define MLP_GATE_UP_KERNEL(NAME, BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_, ASYNC_)                \
    extern "C" __global__ void __launch_bounds__(WM_ * WN_ * 32, MIN_BLOCKS_)                      \
        NAME(const __nv_bfloat16 *__restrict__ x,      /* m x d, rows stride_xm apart */           \
             const __nv_bfloat16 *__restrict__ w_gate, /* f x d, rows stride_gate apart */        \
             const __nv_bfloat16 *__restrict__ w_up,   /* f x d, rows stride_up apart */          \
             __nv_bfloat16 *__restrict__ h,            /* m x f, contiguous */                    \
             int m, int f, int d, int stride_xm, int stride_gate, int stride_up, int group_m)    \
    {                                                                                              \
        extern __shared__ __align__(128) unsigned char smem[];                                     \
        linear_wmma::gemm_rows<__nv_bfloat16, BM_, BN_, BK_, WM_, WN_, ST_, MIN_BLOCKS_, ASYNC_>(  \
            smem, x, linear_wmma::Interleaved<__nv_bfloat16>{w_gate, w_up, f, stride_gate,       \
                                                             stride_up},                          \
            h, m, d, stride_xm, group_m, SiluMul{});                                               \
    }
#define MLP_DOWN_KERNEL(NAME, BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_, ASYNC_)                   \
    extern "C" __global__ void __launch_bounds__(WM_ * WN_ * 32, MIN_BLOCKS_)                      \
        NAME(const __nv_bfloat16 *__restrict__ h,      /* m x f, contiguous */                    \
             const __nv_bfloat16 *__restrict__ w_down, /* d x f, rows stride_down apart */        \
             __nv_bfloat16 *__restrict__ y,            /* m x d, contiguous */                    \
             int m, int d, int f, int stride_down, int group_m)                                    \
    {                                                                                              \
        extern __shared__ __align__(128) unsigned char smem[];                                     \
        linear_wmma::gemm<__nv_bfloat16, BM_, BN_, BK_, WM_, WN_, ST_, MIN_BLOCKS_, ASYNC_>(       \
            smem, h, w_down, y, m, d, f, f, stride_down, group_m, Round{});                        \
    }
#define MLP_TUNED(BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_)                                       \
    MLP_GATE_UP_KERNEL(mlp_gate_up_kernel_##BM_##x##BN_##_##WM_##x##WN_##_##BK_##_##ST_, BM_, BN_, \
                       WM_, WN_, BK_, ST_, MIN_BLOCKS_, true)                                      \
    MLP_DOWN_KERNEL(mlp_down_kernel_##BM_##x##BN_##_##WM_##x##WN_##_##BK_##_##ST_, BM_, BN_, WM_,  \
                    WN_, BK_, ST_, MIN_BLOCKS_, true)
#define MLP_GATE_UP_TUNED(BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_)                               \
    MLP_GATE_UP_KERNEL(mlp_gate_up_kernel_##BM_##x##BN_##_##WM_##x##WN_##_##BK_##_##ST_, BM_, BN_, \
                       WM_, WN_, BK_, ST_, MIN_BLOCKS_, true)
#define MLP_DOWN_TUNED(BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_)                                  \
    MLP_DOWN_KERNEL(mlp_down_kernel_##BM_##x##BN_##_##WM_##x##WN_##_##BK_##_##ST_, BM_, BN_, WM_,  \
                    WN_, BK_, ST_, MIN_BLOCKS_, true)

// Prefill, both kernels: each tile at BK 32 and 64, 3 and 4 stages.
MLP_TUNED(128, 256, 2, 4, 32, 3, 1)
MLP_TUNED(128, 256, 2, 4, 32, 4, 1)
MLP_TUNED(128, 256, 2, 4, 64, 3, 1)
MLP_TUNED(128, 256, 2, 4, 64, 4, 1)
MLP_TUNED(128, 128, 2, 2, 32, 3, 2)
MLP_TUNED(128, 128, 2, 2, 32, 4, 2)
MLP_TUNED(128, 128, 2, 2, 64, 3, 2)
MLP_TUNED(128, 128, 2, 2, 64, 4, 2)
// Decode, gate/up: each tile at BK 64 and 128, 4 stages (64 x 64 at BK 256 would need 270 KB).
MLP_GATE_UP_TUNED(64, 64, 2, 2, 64, 4, 1)
MLP_GATE_UP_TUNED(64, 64, 2, 2, 128, 4, 1)
MLP_GATE_UP_TUNED(64, 32, 4, 1, 64, 4, 1)
MLP_GATE_UP_TUNED(64, 32, 4, 1, 128, 4, 1)
// Decode, down: each tile at BK 64, 128 and 256, 4 stages (64 x 32 at 256: 202752 bytes).
MLP_DOWN_TUNED(64, 32, 2, 2, 64, 4, 1)
MLP_DOWN_TUNED(64, 32, 2, 2, 128, 4, 1)
MLP_DOWN_TUNED(64, 32, 2, 2, 256, 4, 1)
MLP_DOWN_TUNED(64, 16, 4, 1, 64, 4, 1)
MLP_DOWN_TUNED(64, 16, 4, 1, 128, 4, 1)
MLP_DOWN_TUNED(64, 16, 4, 1, 256, 4, 1)
// Unaligned rows: 64 x 64, 4 warps, BK 32, 2 buffers (the copies are synchronous).
MLP_GATE_UP_KERNEL(mlp_gate_up_kernel_unaligned, 64, 64, 2, 2, 32, 2, 1, false)
MLP_DOWN_KERNEL(mlp_down_kernel_unaligned, 64, 64, 2, 2, 32, 2, 1, false)
