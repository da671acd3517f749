// Reference CUDA int8 matmul with a dequantizing epilogue for lab14 (hidden from students): the
// perf bar of int8_matmul, c = (a @ b.T) * s_row[:, None] * s_col[None, :] in bfloat16. The
// GEMM is the shared pipelined WMMA body, reference/common/linear_wmma.cuh (this file is
// compiled after its text: int8_matmul_cuda.py): signed char fragments, an int accumulator,
// K tiles stored slice by slice (each 16 x 16 fragment 256 contiguous bytes, 32-byte aligned),
// cp.async STAGES deep; here only the epilogue and the kernels.
//
// Work (lab.toml's `flops`): 2 m n k. Byte ledger of the minimum: read a, b, s_row and s_col
// once, write c once, m k + n k + 4 (m + n) + 2 m n bytes. This kernel reads a tile of a once
// per tile column of c and a tile of b once per tile row (2 BM BN / (BM + BN) operations per
// byte fetched: 171 at 128 x 256; the grouped numbering keeps most re-reads in the L2), the
// scales once per fragment row and column, and writes c once, 16 bytes per store.
//
// Tiles (int8_matmul_cuda.py's TUNE): lab10's compute-bound ones, 128 x 256 with 8 warps of
// 64 x 64 (one block per SM: 255 registers a thread), 128 x 128 with 4 warps of 64 x 64 (two
// blocks per SM where their shared memory fits). K tiles of BK = 64 or 128 bytes: the bytes of
// lab10's float16 tiles at BK 32 or 64, twice the depth. Rows that are not 16-byte aligned (b
// padded by an odd count, k not a multiple of 16) take one byte-wise kernel instead
// (int8_matmul_kernel_unaligned): correct at any shape, slow.
//
// The epilogue: the int32 sum (exact) converted to float32, times s_row[row], times
// s_col[col], one rounding to bfloat16.

// The scales of one element of c.
struct Dequantize {
    const float *__restrict__ s_row;  // [m]
    const float *__restrict__ s_col;  // [n]

    __device__ __forceinline__ float operator()(int acc, int row, int col) const
    {
        return (float)acc * s_row[row] * s_col[col];
    }
};

// One kernel per (tile, warps, BK, STAGES) of TUNE in int8_matmul_cuda.py, named
// int8_matmul_kernel_<BM>x<BN>_<WARPS_M>x<WARPS_N>_<BK>_<STAGES>. MIN_BLOCKS (blocks per SM
// for __launch_bounds__): 2 for 128 x 128 with 4 warps (up to 255 registers a thread still),
// 1 for 128 x 256. ASYNC: 16-byte cp.async copies (aligned rows) or byte-wise ones.
#define INT8_MATMUL_KERNEL(NAME, BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_, ASYNC_)                \
    extern "C" __global__ void __launch_bounds__(WM_ * WN_ * 32, MIN_BLOCKS_)                      \
        NAME(const signed char *__restrict__ a, /* m x k, rows stride_am apart */                  \
             const signed char *__restrict__ b, /* n x k (B col-major), rows stride_bn apart */    \
             const float *__restrict__ s_row,   /* [m] */                                          \
             const float *__restrict__ s_col,   /* [n] */                                          \
             __nv_bfloat16 *__restrict__ c,     /* m x n, contiguous */                            \
             int m, int n, int k, int stride_am, int stride_bn, int group_m)                       \
    {                                                                                              \
        extern __shared__ __align__(128) unsigned char smem[];                                     \
        linear_wmma::gemm<signed char, BM_, BN_, BK_, WM_, WN_, ST_, MIN_BLOCKS_, ASYNC_>(         \
            smem, a, b, c, m, n, k, stride_am, stride_bn, group_m, Dequantize{s_row, s_col});      \
    }
#define INT8_MATMUL_TUNED(BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_)                               \
    INT8_MATMUL_KERNEL(int8_matmul_kernel_##BM_##x##BN_##_##WM_##x##WN_##_##BK_##_##ST_, BM_, BN_, \
                       WM_, WN_, BK_, ST_, MIN_BLOCKS_, true)

// Each tile at BK 64 and 128, 3 and 4 stages.
INT8_MATMUL_TUNED(128, 256, 2, 4, 64, 3, 1)
INT8_MATMUL_TUNED(128, 256, 2, 4, 64, 4, 1)
INT8_MATMUL_TUNED(128, 256, 2, 4, 128, 3, 1)
INT8_MATMUL_TUNED(128, 256, 2, 4, 128, 4, 1)
INT8_MATMUL_TUNED(128, 128, 2, 2, 64, 3, 2)
INT8_MATMUL_TUNED(128, 128, 2, 2, 64, 4, 2)
INT8_MATMUL_TUNED(128, 128, 2, 2, 128, 3, 2)
INT8_MATMUL_TUNED(128, 128, 2, 2, 128, 4, 2)
// Unaligned rows: 64 x 64, 4 warps, BK 64, 2 buffers (the copies are synchronous).
INT8_MATMUL_KERNEL(int8_matmul_kernel_unaligned, 64, 64, 2, 2, 64, 2, 1, false)
