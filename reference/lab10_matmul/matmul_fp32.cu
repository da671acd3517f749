// Reference CUDA float32 matmul for lab10 (hidden from students): the perf bar of matmul_fp32.
//
// Work (lab.toml's `flops`): 2 m n k. Byte ledger of the minimum: read a and b once, write c
// once, 4 (m k + k n + m n) bytes. This kernel reads a tile of a once per tile column of c and a
// tile of b once per tile row (BN / 4 and BM / 4 FLOPs per byte fetched), the grouped numbering
// keeping most of the re-reads in the L2; it writes c once.
//
// One block per BM x BN tile of c, (BM / 8) x (BN / 8) threads, each an 8 x 8 piece of c in
// registers: rows ty*4 + 0..3 and BM/2 + ty*4 + 0..3, columns tx*4 + 0..3 and BN/2 + tx*4 +
// 0..3, so that the shared-memory reads of a warp are 2 x 4 contiguous floats per thread
// (float4s, no bank conflicts). Per K tile (BK deep): a is stored transposed in shared memory
// (as[kk][i], rows BM + 4 floats long: the transposing writes spread over all banks), b as it
// is. Two buffers of each: the next K tile is loaded from global memory into registers before
// the current one is multiplied, and stored into the other buffer after it: one
// __syncthreads() per K tile, the global loads' latency hidden behind BK x 64 multiply-adds.
//
// - matmul_fp32_kernel_vec_<BM>x<BN>x<BK>: global loads and the stores of c as float4s.
//   Needs k, n, both row strides multiples of 4 and a, b, c 16-byte aligned (the launcher
//   checks): every float4 of a row is then inside the matrix or outside it as a whole.
// - matmul_fp32_kernel_scalar: any layout, one float per global access (128 x 128 x 8).
//
// Tiles are numbered on a 1-D grid (no 65535 limit) in groups of group_m tile rows, column by
// column inside a group. Offsets are 64-bit wherever a row number multiplies a stride.

template <int BM, int BN, int BK, bool VEC>
__device__ __forceinline__ void body(float (*as)[BK][BM + 4], float (*bs)[BK][BN],
                                     const float *__restrict__ a, const float *__restrict__ b,
                                     float *__restrict__ c, int m, int n, int k, int stride_am,
                                     int stride_bk, int group_m)
{
    constexpr int TX = BN / 8, TY = BM / 8, THREADS = TX * TY;
    constexpr int V = VEC ? 4 : 1;                    // floats per global access
    constexpr int LA = BM * BK / V / THREADS;         // accesses per thread per K tile: a
    constexpr int LB = BK * BN / V / THREADS;         // ... and b
    static_assert(LA * V * THREADS == BM * BK && LB * V * THREADS == BK * BN, "tile split");

    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = group_m * tiles_n, first_m = blockIdx.x / per_group * group_m;
    const int rows = min(tiles_m - first_m, group_m);
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int t = threadIdx.x, tx = t % TX, ty = t / TX;

    float ra[LA][V], rb[LB][V];  // the next K tile, on its way from global memory
    auto fetch = [&](int k0) {
#pragma unroll
        for (int p = 0; p < LA; ++p) {  // a: V floats along a row, BK / V accesses per row
            const int e = t + p * THREADS, i = e / (BK / V), kk = e % (BK / V) * V;
            const int row = row0 + i, col = k0 + kk;
            if (row < m && col < k) {  // whole float4s: k % 4 == 0 on this path
                if constexpr (VEC) {
                    const float4 v = __ldg(reinterpret_cast<const float4 *>(
                        a + (long long)row * stride_am + col));
                    ra[p][0] = v.x, ra[p][1] = v.y, ra[p][2] = v.z, ra[p][3] = v.w;
                } else {
                    ra[p][0] = __ldg(a + (long long)row * stride_am + col);
                }
            } else {
#pragma unroll
                for (int q = 0; q < V; ++q) ra[p][q] = 0.0f;  // past m or k: adds nothing
            }
        }
#pragma unroll
        for (int p = 0; p < LB; ++p) {
            const int e = t + p * THREADS, kk = e / (BN / V), j = e % (BN / V) * V;
            const int row = k0 + kk, col = col0 + j;
            if (row < k && col < n) {
                if constexpr (VEC) {
                    const float4 v = __ldg(reinterpret_cast<const float4 *>(
                        b + (long long)row * stride_bk + col));
                    rb[p][0] = v.x, rb[p][1] = v.y, rb[p][2] = v.z, rb[p][3] = v.w;
                } else {
                    rb[p][0] = __ldg(b + (long long)row * stride_bk + col);
                }
            } else {
#pragma unroll
                for (int q = 0; q < V; ++q) rb[p][q] = 0.0f;
            }
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int p = 0; p < LA; ++p) {
            const int e = t + p * THREADS, i = e / (BK / V), kk = e % (BK / V) * V;
#pragma unroll
            for (int q = 0; q < V; ++q) as[buf][kk + q][i] = ra[p][q];
        }
#pragma unroll
        for (int p = 0; p < LB; ++p) {
            const int e = t + p * THREADS, kk = e / (BN / V), j = e % (BN / V) * V;
            if constexpr (VEC)
                *reinterpret_cast<float4 *>(&bs[buf][kk][j]) =
                    make_float4(rb[p][0], rb[p][1], rb[p][2], rb[p][3]);
            else
                bs[buf][kk][j] = rb[p][0];
        }
    };

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    const int k_tiles = (k + BK - 1) / BK;
    fetch(0);
    stash(0);
    __syncthreads();
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int buf = kt % 2;
        if (kt + 1 < k_tiles) fetch((kt + 1) * BK);  // in flight during the multiply-adds
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            const float4 a0 = *reinterpret_cast<const float4 *>(&as[buf][kk][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4 *>(&as[buf][kk][BM / 2 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4 *>(&bs[buf][kk][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4 *>(&bs[buf][kk][BN / 2 + tx * 4]);
            const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        // The other buffer was last read before the previous __syncthreads(): free.
        if (kt + 1 < k_tiles) stash(1 - buf);
        __syncthreads();  // the stash is visible; this buffer is free for the next stash
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = row0 + (i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + i - 4);
        if (row >= m) continue;  // the block tile's rows past c
        float *out = c + (long long)row * n;
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // columns tx*4 + 0..3, then BN/2 + tx*4 + 0..3
            const int col = col0 + h * (BN / 2) + tx * 4;
            if constexpr (VEC) {
                if (col < n)  // whole float4s: n % 4 == 0
                    *reinterpret_cast<float4 *>(out + col) = make_float4(
                        acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (col + q < n) out[col + q] = acc[i][4 * h + q];
            }
        }
    }
}

// One kernel per (BM, BN, BK, MINB): the sweep's candidates (TUNE in matmul_fp32_cuda.py).
// MINB is __launch_bounds__'s blocks per SM: 2 caps a 256-thread block at 128 registers per
// thread (two blocks share an SM: more warps to hide latency with), 1 lets it use up to 255
// (no spills, one block). Each kernel declares its own shared arrays: declared in the helper,
// the CPU backend would count every instantiation's against each kernel.
#define VEC_KERNEL(BM_, BN_, BK_, MINB_)                                                           \
    extern "C" __global__ void __launch_bounds__(BM_ / 8 * (BN_ / 8), MINB_)                       \
        matmul_fp32_kernel_vec_##BM_##x##BN_##x##BK_##_##MINB_(                                    \
            const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c,       \
            int m, int n, int k, int stride_am, int stride_bk, int group_m)                        \
    {                                                                                              \
        __shared__ __align__(16) float as[2][BK_][BM_ + 4];                                        \
        __shared__ __align__(16) float bs[2][BK_][BN_];                                            \
        body<BM_, BN_, BK_, true>(as, bs, a, b, c, m, n, k, stride_am, stride_bk, group_m);        \
    }

VEC_KERNEL(128, 128, 8, 1)
VEC_KERNEL(128, 128, 8, 2)
VEC_KERNEL(128, 128, 16, 1)
VEC_KERNEL(128, 128, 16, 2)
VEC_KERNEL(128, 64, 8, 1)
VEC_KERNEL(128, 64, 8, 2)
VEC_KERNEL(64, 128, 8, 1)
VEC_KERNEL(64, 128, 8, 2)
VEC_KERNEL(64, 64, 8, 1)
VEC_KERNEL(64, 64, 8, 2)
VEC_KERNEL(64, 64, 16, 1)
VEC_KERNEL(64, 64, 16, 2)

extern "C" __global__ void __launch_bounds__(256)
    matmul_fp32_kernel_scalar(const float *__restrict__ a, const float *__restrict__ b,
                              float *__restrict__ c, int m, int n, int k, int stride_am,
                              int stride_bk, int group_m)
{
    __shared__ __align__(16) float as[2][8][128 + 4];
    __shared__ __align__(16) float bs[2][8][128];
    body<128, 128, 8, false>(as, bs, a, b, c, m, n, k, stride_am, stride_bk, group_m);
}
