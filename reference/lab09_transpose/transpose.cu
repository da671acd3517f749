// Reference CUDA transpose for lab09 (hidden from students): the perf bar of transpose.
//
// Byte ledger (lab.toml's `bytes`): read x once, write out once,
// 2 * n_rows * n_cols * sizeof(float). Each element is loaded by one thread, once, staged in
// shared memory, and stored by one thread, once; shared memory is not counted (on chip).
//
// Both kernels run on a 1-D grid of tiles (blockIdx.x -> tile row, tile column of x, numbered
// along x's rows), so no grid axis caps the matrix's size; offsets are 64-bit throughout.
//
// - transpose_kernel_vec_<T>x<THREADS>: T x T tiles (T = 32 or 64) moved as float4s, 16 bytes
//   per global access in both directions. Needs n_rows, n_cols and stride_xm multiples of 4
//   and x and out 16-byte aligned (the launcher checks), so that a float4 of x (4 columns of
//   one row) and a float4 of out (4 rows of x, one column) are each inside the matrix or
//   outside it as a whole.
//   Thread-to-element map (split() below): each warp covers 4 lines of the tile x 8 float4s,
//   in the load (4 rows of x, 128 bytes each) and in the store (4 rows of out, 128 bytes each):
//   whole 128-byte lines in global memory. The tile is float[T][T + 1]: its pitch is 1 mod 32
//   words, so element [r][c] sits in bank (r + c) % 32. The load writes [r][4 c4 + q] for the
//   warp's r = r_hi + 0..3 and c4 = c4_hi + 0..7: banks (r + 4 c4 + q) % 32, 32 different ones
//   for each q. The store reads [4 i4 + q][j] for i4 = 0..7 and j = 0..3 (+ constants): banks
//   (4 i4 + q + j) % 32, again 32 different ones. No bank conflicts on either side.
//   Each thread issues all its loads (PER_THREAD float4s) before its first shared store.
// - transpose_kernel_scalar: any layout (x's rows at any stride, any size, any alignment);
//   32 x 32 tiles, 32 x 8 threads with 4 elements each, a float[32][33] tile.

#define S_TILE 32       // the scalar kernel's tile
#define S_BLOCK_ROWS 8  // ... and its threads per column (blockDim = S_TILE x S_BLOCK_ROWS)

// Element e (0 .. T * T / 4) of a T x (T / 4) grid of float4s: `line` (a row of the tile in
// the load, a row of out's tile in the store) and `quad` (a float4 along that line).
template <int T>
__device__ __forceinline__ void split(int e, int &line, int &quad)
{
    constexpr int WARPS_PER_BAND = T / 4 / 8;  // 8 float4s per warp per line, 4 lines
    const int lane = e % 32, warp = e / 32;
    line = (warp / WARPS_PER_BAND) * 4 + lane / 8;
    quad = (warp % WARPS_PER_BAND) * 8 + lane % 8;
}

// The tile is each kernel's own __shared__ array, passed in: declared here, in a helper, it
// would be counted against every kernel of the module by the CPU backend (which cannot tell
// which kernel calls which helper), 6 tiles in all, past the 48 KiB of static shared memory.
template <int T, int THREADS>
__device__ __forceinline__ void vec_body(float (*tile)[T + 1], const float *__restrict__ x,
                                         float *__restrict__ out, long long n_rows,
                                         long long n_cols, long long stride_xm)
{
    constexpr int ITEMS = T * T / 4;  // float4s per tile
    constexpr int PER_THREAD = (ITEMS + THREADS - 1) / THREADS;
    const long long tiles_n = (n_cols + T - 1) / T;
    const long long row0 = (long long)(blockIdx.x / tiles_n) * T;  // the tile's corner in x
    const long long col0 = (long long)(blockIdx.x % tiles_n) * T;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *o4 = reinterpret_cast<float4 *>(out);
    const long long sx4 = stride_xm / 4, so4 = n_rows / 4;  // row strides in float4s

    float4 v[PER_THREAD];
#pragma unroll
    for (int p = 0; p < PER_THREAD; ++p) {  // every load in flight before the first is used
        const int e = threadIdx.x + p * THREADS;
        int r, c4;
        split<T>(e, r, c4);
        const long long row = row0 + r, col = col0 + 4 * c4;
        v[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        // Past the matrix's last row or column (a whole float4 either way): not loaded.
        if (e < ITEMS && row < n_rows && col < n_cols) v[p] = __ldg(x4 + row * sx4 + col / 4);
    }
#pragma unroll
    for (int p = 0; p < PER_THREAD; ++p) {
        const int e = threadIdx.x + p * THREADS;
        int r, c4;
        split<T>(e, r, c4);
        if (e < ITEMS) {  // THREADS may exceed the tile's float4s (T = 32, 512 threads)
            tile[r][4 * c4 + 0] = v[p].x;
            tile[r][4 * c4 + 1] = v[p].y;
            tile[r][4 * c4 + 2] = v[p].z;
            tile[r][4 * c4 + 3] = v[p].w;
        }
    }
    __syncthreads();  // the whole tile is in shared memory before any thread reads a column
#pragma unroll
    for (int p = 0; p < PER_THREAD; ++p) {
        const int e = threadIdx.x + p * THREADS;
        int j, i4;
        split<T>(e, j, i4);  // out's row col0 + j (a column of x), its float4 at row0 + 4 i4
        const long long out_row = col0 + j, out_col = row0 + 4 * i4;
        // out is n_cols x n_rows: its own bounds, whole float4s again.
        if (e < ITEMS && out_row < n_cols && out_col < n_rows) {
            const float4 w = make_float4(tile[4 * i4 + 0][j], tile[4 * i4 + 1][j],
                                         tile[4 * i4 + 2][j], tile[4 * i4 + 3][j]);
            o4[out_row * so4 + out_col / 4] = w;
        }
    }
}

// One kernel per (T, THREADS): the sweep's candidates (TUNE in transpose_cuda.py).
extern "C" __global__ void transpose_kernel_vec_32x128(const float *__restrict__ x,
                                                       float *__restrict__ out, long long n_rows,
                                                       long long n_cols, long long stride_xm)
{
    __shared__ float tile[32][32 + 1];
    vec_body<32, 128>(tile, x, out, n_rows, n_cols, stride_xm);
}

extern "C" __global__ void transpose_kernel_vec_32x256(const float *__restrict__ x,
                                                       float *__restrict__ out, long long n_rows,
                                                       long long n_cols, long long stride_xm)
{
    __shared__ float tile[32][32 + 1];
    vec_body<32, 256>(tile, x, out, n_rows, n_cols, stride_xm);
}

extern "C" __global__ void transpose_kernel_vec_32x512(const float *__restrict__ x,
                                                       float *__restrict__ out, long long n_rows,
                                                       long long n_cols, long long stride_xm)
{
    __shared__ float tile[32][32 + 1];
    vec_body<32, 512>(tile, x, out, n_rows, n_cols, stride_xm);
}

extern "C" __global__ void transpose_kernel_vec_64x128(const float *__restrict__ x,
                                                       float *__restrict__ out, long long n_rows,
                                                       long long n_cols, long long stride_xm)
{
    __shared__ float tile[64][64 + 1];
    vec_body<64, 128>(tile, x, out, n_rows, n_cols, stride_xm);
}

extern "C" __global__ void transpose_kernel_vec_64x256(const float *__restrict__ x,
                                                       float *__restrict__ out, long long n_rows,
                                                       long long n_cols, long long stride_xm)
{
    __shared__ float tile[64][64 + 1];
    vec_body<64, 256>(tile, x, out, n_rows, n_cols, stride_xm);
}

extern "C" __global__ void transpose_kernel_vec_64x512(const float *__restrict__ x,
                                                       float *__restrict__ out, long long n_rows,
                                                       long long n_cols, long long stride_xm)
{
    __shared__ float tile[64][64 + 1];
    vec_body<64, 512>(tile, x, out, n_rows, n_cols, stride_xm);
}

extern "C" __global__ void transpose_kernel_scalar(const float *__restrict__ x,
                                                   float *__restrict__ out, long long n_rows,
                                                   long long n_cols, long long stride_xm)
{
    __shared__ float tile[S_TILE][S_TILE + 1];
    const long long tiles_n = (n_cols + S_TILE - 1) / S_TILE;
    const long long row0 = (long long)(blockIdx.x / tiles_n) * S_TILE;
    const long long col0 = (long long)(blockIdx.x % tiles_n) * S_TILE;
    const long long col = col0 + threadIdx.x;  // threadIdx.x along a row of x
#pragma unroll
    for (int k = 0; k < S_TILE; k += S_BLOCK_ROWS) {
        const long long row = row0 + threadIdx.y + k;
        if (row < n_rows && col < n_cols)  // the edge tiles run past the matrix
            tile[threadIdx.y + k][threadIdx.x] = x[row * stride_xm + col];
    }
    __syncthreads();  // loaded by every warp before any reads a column
    const long long out_col = row0 + threadIdx.x;  // threadIdx.x along a row of out
#pragma unroll
    for (int k = 0; k < S_TILE; k += S_BLOCK_ROWS) {
        const long long out_row = col0 + threadIdx.y + k;
        if (out_row < n_cols && out_col < n_rows)  // out's own bounds
            out[out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
    }
}
