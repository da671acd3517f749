// tclab: no_extern_c
// Tensor cores through nvcuda::wmma (fp16 / bf16 multiplicands, float or half accumulators) and
// the cp.async primitives of <cuda_pipeline.h>, on both backends. One warp per 16x16 tile in
// the small kernels; wmma_matmul is a whole tiled matmul (4 warps a block, double-buffered
// shared-memory stages filled by __pipeline_memcpy_async).
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// ---------------------------------------------------------------- one 16x16x16 tile

// D = A @ B + C. A and B in memory as their fragment layouts say (lda, ldb elements between
// rows, or columns); C loaded and D stored row- or column-major as c_col / d_col say.
template <class LA, class LB>
__device__ void tile_mma(const __half *a, int lda, const __half *b, int ldb, const float *c,
                         int ldc, int c_col, float *d, int ldd, int d_col)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, LA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, LB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(acc, c, ldc, c_col ? wmma::mem_col_major : wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);  // in place: C = A @ B + C
    wmma::store_matrix_sync(d, acc, ldd, d_col ? wmma::mem_col_major : wmma::mem_row_major);
}

extern "C" __global__ void tile_rr(const __half *a, int lda, const __half *b, int ldb,
                                   const float *c, int ldc, int c_col, float *d, int ldd,
                                   int d_col)
{
    tile_mma<wmma::row_major, wmma::row_major>(a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col);
}

extern "C" __global__ void tile_rc(const __half *a, int lda, const __half *b, int ldb,
                                   const float *c, int ldc, int c_col, float *d, int ldd,
                                   int d_col)
{
    tile_mma<wmma::row_major, wmma::col_major>(a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col);
}

extern "C" __global__ void tile_cr(const __half *a, int lda, const __half *b, int ldb,
                                   const float *c, int ldc, int c_col, float *d, int ldd,
                                   int d_col)
{
    tile_mma<wmma::col_major, wmma::row_major>(a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col);
}

extern "C" __global__ void tile_cc(const __half *a, int lda, const __half *b, int ldb,
                                   const float *c, int ldc, int c_col, float *d, int ldd,
                                   int d_col)
{
    tile_mma<wmma::col_major, wmma::col_major>(a, lda, b, ldb, c, ldc, c_col, d, ldd, d_col);
}

// Half accumulators: d_half = A @ B + c_half, and the mixed forms (float C -> half D into
// d_from_float, half C -> float D into d_float). All 16x16 row-major, ld 16.
extern "C" __global__ void tile_half(const __half *a, const __half *b, const __half *c_half,
                                     const float *c_float, __half *d_half, __half *d_from_float,
                                     float *d_float)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> ch, dh;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> cf, df;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(ch, c_half, 16, wmma::mem_row_major);
    wmma::load_matrix_sync(cf, c_float, 16, wmma::mem_row_major);
    wmma::mma_sync(dh, fa, fb, ch);
    wmma::store_matrix_sync(d_half, dh, 16, wmma::mem_row_major);
    wmma::mma_sync(dh, fa, fb, cf);
    wmma::store_matrix_sync(d_from_float, dh, 16, wmma::mem_row_major);
    wmma::mma_sync(df, fa, fb, ch);
    wmma::store_matrix_sync(d_float, df, 16, wmma::mem_row_major);
}

// Element-wise work on fragments, whatever their element-to-lane mapping: out =
// relu(alpha * ((2 A) @ B) + beta * C) in half, through x[0 .. num_elements).
extern "C" __global__ void tile_epilogue(const __half *a, const __half *b, const float *c,
                                         float alpha, float beta, __half *out)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, cf;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> h;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(cf, c, 16, wmma::mem_row_major);
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = fa.x[i] * __float2half(2.0f);
    wmma::fill_fragment(acc, 0.0f);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int i = 0; i < acc.num_elements; i++) {
        const float v = alpha * acc.x[i] + beta * cf.x[i];
        h.x[i] = __float2half(v > 0.0f ? v : 0.0f);
    }
    wmma::store_matrix_sync(out, h, 16, wmma::mem_row_major);
}

// The other shapes, and bfloat16: D = A @ B, A row-major (ld K), B column-major (ld K), D
// row-major (ld N).
template <int M, int N, int K, class T>
__device__ void shape_mma(const T *a, const T *b, float *d)
{
    wmma::fragment<wmma::matrix_a, M, N, K, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void shape_32x8x16(const __half *a, const __half *b, float *d)
{
    shape_mma<32, 8, 16>(a, b, d);
}

extern "C" __global__ void shape_8x32x16(const __half *a, const __half *b, float *d)
{
    shape_mma<8, 32, 16>(a, b, d);
}

extern "C" __global__ void shape_16x16x16_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                               float *d)
{
    shape_mma<16, 16, 16>(a, b, d);
}

extern "C" __global__ void shape_32x8x16_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                              float *d)
{
    shape_mma<32, 8, 16>(a, b, d);
}

// num_elements of some fragments (as CUDA's <mma.h> declares them), and one sizeof.
extern "C" __global__ void fragment_sizes(int *out)
{
    using wmma::matrix_a;
    using wmma::matrix_b;
    using wmma::row_major;
    typedef __nv_bfloat16 bf16;
    if (threadIdx.x != 0) return;
    out[0] = wmma::fragment<matrix_a, 16, 16, 16, __half, row_major>::num_elements;
    out[1] = wmma::fragment<matrix_b, 16, 16, 16, __half, wmma::col_major>::num_elements;
    out[2] = wmma::fragment<wmma::accumulator, 16, 16, 16, float>::num_elements;
    out[3] = wmma::fragment<wmma::accumulator, 16, 16, 16, __half>::num_elements;
    out[4] = wmma::fragment<matrix_a, 16, 16, 16, bf16, row_major>::num_elements;
    out[5] = wmma::fragment<matrix_b, 32, 8, 16, __half, row_major>::num_elements;
    out[6] = wmma::fragment<matrix_b, 32, 8, 16, bf16, row_major>::num_elements;
    out[7] = wmma::fragment<matrix_a, 8, 32, 16, bf16, row_major>::num_elements;
    out[8] = sizeof(wmma::fragment<matrix_a, 16, 16, 16, __half, row_major>);
}

// ---------------------------------------------------------------- the pipeline primitives

// A block stages its 4 * blockDim.x floats in shared memory, 16 bytes a thread, then each
// thread writes out what other threads copied, reversed. STEPS = 2: commit, wait,
// __syncthreads() (correct); 1: no __pipeline_wait_prior (a thread's copy may not have landed
// when the others read it); 0: a wait but no __pipeline_commit (a wait covers committed
// batches only). On the CPU backend a copy lands at its wait, so both mistakes read NaN.
template <int STEPS>
__device__ void staged_reverse_body(float *stage, const float *src, float *out)
{
    const int n = 4 * blockDim.x, t = 4 * threadIdx.x;
    const float *block_src = src + (size_t)blockIdx.x * n;
    __pipeline_memcpy_async(stage + t, block_src + t, 16);
    if (STEPS >= 1) __pipeline_commit();
    if (STEPS >= 2 || STEPS == 0) __pipeline_wait_prior(0);
    __syncthreads();
    for (int k = 0; k < 4; k++) out[(size_t)blockIdx.x * n + t + k] = stage[n - 1 - (t + k)];
}

extern "C" __global__ void staged_reverse(const float *src, float *out)
{
    __shared__ __align__(16) float stage[4 * 256];
    staged_reverse_body<2>(stage, src, out);
}

extern "C" __global__ void staged_reverse_no_wait(const float *src, float *out)
{
    __shared__ __align__(16) float stage[4 * 256];
    staged_reverse_body<1>(stage, src, out);
}

extern "C" __global__ void staged_reverse_no_commit(const float *src, float *out)
{
    __shared__ __align__(16) float stage[4 * 256];
    staged_reverse_body<0>(stage, src, out);
}

// Inline PTX the preprocessor keeps from the CPU build (__CUDA_ARCH__ is not defined there):
// nvcc runs the asm, the CPU backend the fallback. An empty asm (a compiler barrier) is fine.
extern "C" __global__ void lane_ids(unsigned *out)
{
    unsigned lane;
#ifdef __CUDA_ARCH__
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
#else
    lane = threadIdx.x % 32;
#endif
    asm volatile("" ::: "memory");
    out[threadIdx.x] = lane;
}

// ---------------------------------------------------------------- a tiled matmul

// C (M x N, float) = A (M x K, half, row-major) @ B (K x N, half, row-major); K and N multiples
// of 8 (rows start 16-byte aligned, as 16-byte copies need). A block of 4 warps computes a
// 64 x 64 tile of C, each warp a 32 x 32 quarter as 2 x 2 WMMA tiles, over K in steps of 32.
// Two shared-memory stages: while one is multiplied, the next one's copies are in flight.
constexpr int BM = 64, BN = 64, BK = 32;
constexpr int PAD = 8;             // halves: ldm stays a multiple of 8, rows start 32-byte aligned
constexpr int LDA_S = BK + PAD;    // shared A stage: BM rows of BK halves
constexpr int LDB_S = BN + PAD;    // shared B stage: BK rows of BN halves
constexpr int LDC_S = BN + 4;      // floats: the block's C tile on its way out
constexpr int CHUNK = 8;           // halves per 16-byte copy

// Issue one stage's copies: rows past M or K and columns past K or N are zero-filled (the
// copy's zfill), so tails multiply as zeros.
__device__ void load_stage(__half *sa, __half *sb, const __half *A, const __half *B, int M, int N,
                           int K, int m0, int n0, int k0)
{
    for (int c = threadIdx.x; c < BM * BK / CHUNK; c += blockDim.x) {
        const int r = c / (BK / CHUNK), col = c % (BK / CHUNK) * CHUNK;
        const int gr = m0 + r, gc = k0 + col;
        const int valid = gr < M ? max(0, min(CHUNK, K - gc)) : 0;  // halves inside A
        const __half *src = valid > 0 ? A + (size_t)gr * K + gc : A;
        __pipeline_memcpy_async(sa + r * LDA_S + col, src, 16, (CHUNK - valid) * 2);
    }
    for (int c = threadIdx.x; c < BK * BN / CHUNK; c += blockDim.x) {
        const int r = c / (BN / CHUNK), col = c % (BN / CHUNK) * CHUNK;
        const int gr = k0 + r, gc = n0 + col;
        const int valid = gr < K ? max(0, min(CHUNK, N - gc)) : 0;  // halves inside B
        const __half *src = valid > 0 ? B + (size_t)gr * N + gc : B;
        __pipeline_memcpy_async(sb + r * LDB_S + col, src, 16, (CHUNK - valid) * 2);
    }
}

// The block's shared memory (declared in each kernel: one set per kernel, as on a GPU).
struct Stages {
    __half a[2][BM * LDA_S];
    __half b[2][BK * LDB_S];
    float c[BM * LDC_S];
};

// BARRIER = false leaves out the __syncthreads() between a stage's copies and its WMMA loads:
// a race (warps read the parts of the stage that other warps copy).
template <bool BARRIER>
__device__ void matmul_body(Stages &smem, const __half *A, const __half *B, float *C, int M,
                            int N, int K)
{
    __half(&sa)[2][BM * LDA_S] = smem.a;
    __half(&sb)[2][BK * LDB_S] = smem.b;
    float *sc = smem.c;
    const int warp = threadIdx.x / 32;
    const int wm = warp / 2, wn = warp % 2;  // the warp's 32 x 32 quarter of the block tile
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    const int steps = (K + BK - 1) / BK;
    load_stage(sa[0], sb[0], A, B, M, N, K, m0, n0, 0);
    __pipeline_commit();
    for (int s = 0; s < steps; s++) {
        if (s + 1 < steps) {
            load_stage(sa[(s + 1) & 1], sb[(s + 1) & 1], A, B, M, N, K, m0, n0, (s + 1) * BK);
            __pipeline_commit();
            __pipeline_wait_prior(1);  // this thread's copies of stage s have landed
        } else {
            __pipeline_wait_prior(0);
        }
        if (BARRIER) __syncthreads();  // ... and every thread's
        const __half *a = sa[s & 1], *b = sb[s & 1];
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(fa[i], a + (wm * 32 + i * 16) * LDA_S + kk, LDA_S);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(fb[j], b + kk * LDB_S + wn * 32 + j * 16, LDB_S);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // the stage is read by all warps before it is refilled
    }
    // Whole 16x16 tiles go to shared memory, then the threads copy what lies inside C.
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(sc + (wm * 32 + i * 16) * LDC_S + wn * 32 + j * 16,
                                    acc[i][j], LDC_S, wmma::mem_row_major);
    __syncthreads();
    for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) {
        const int r = e / BN, c = e % BN;
        if (m0 + r < M && n0 + c < N) C[(size_t)(m0 + r) * N + n0 + c] = sc[r * LDC_S + c];
    }
}

extern "C" __global__ void __launch_bounds__(128)
    wmma_matmul(const __half *A, const __half *B, float *C, int M, int N, int K)
{
    __shared__ __align__(32) Stages smem;
    matmul_body<true>(smem, A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(128)
    wmma_matmul_missing_barrier(const __half *A, const __half *B, float *C, int M, int N, int K)
{
    __shared__ __align__(32) Stages smem;
    matmul_body<false>(smem, A, B, C, M, N, K);
}
