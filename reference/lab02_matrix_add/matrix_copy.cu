// Reference CUDA matrix copy for lab02 (hidden from students): the perf bar of matrix_copy.
//
// Byte ledger (lab.toml's `bytes`): read x once, write out once,
// 2 * n_rows * n_cols * sizeof(float); each element is touched by one thread, once.
//
// Two kernels:
// - *_vec: rows of 16-byte float4s. Needs every row's columns contiguous (stride 1), n_cols
//   and the row strides multiples of 4, and 16-byte aligned pointers (the launcher checks).
//   Thread (tx, ty) of a blockDim.x x blockDim.y block moves float4 column
//   blockIdx.x * blockDim.x + tx of ROWS_PER_THREAD rows, blockDim.y apart: a warp's accesses
//   are 512 contiguous bytes, and each thread issues all its loads before its stores.
// - *_scalar: any layout, one float per access, TILE x TILE tiles of TILE x BLOCK_ROWS
//   threads, threadIdx.x along the columns of out (coalesced stores).
// Both loop over bands of rows (blockIdx.y, gridDim.y apart), so gridDim.y's limit of 65535
// caps nothing. Offsets are 64-bit: matrices past 2^31 elements are in the GPU tests.

#define ROWS_PER_THREAD 2  // float4 rows per thread of the vec kernel (a #define: not swept)
#define TILE 32            // the scalar kernel's tile (columns and rows per block)
#define BLOCK_ROWS 8       // ... and its threads per column

extern "C" __global__ void matrix_copy_kernel_vec(const float *__restrict__ x,
                                                  float *__restrict__ out, int n_rows,
                                                  int n_cols, long long stride_xm)
{
    const int n4 = n_cols / 4;  // float4s per row
    const int c4 = blockIdx.x * blockDim.x + threadIdx.x;
    if (c4 >= n4) return;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    float4 *o4 = reinterpret_cast<float4 *>(out);
    const long long sx4 = stride_xm / 4;
    const long long band_rows = (long long)blockDim.y * ROWS_PER_THREAD;
    for (long long band = blockIdx.y; band * band_rows < n_rows; band += gridDim.y) {
        const long long row0 = band * band_rows + threadIdx.y;
        float4 v[ROWS_PER_THREAD];
#pragma unroll
        for (int k = 0; k < ROWS_PER_THREAD; ++k) {  // every load issued before any store
            const long long row = row0 + (long long)k * blockDim.y;
            if (row < n_rows) v[k] = __ldg(x4 + row * sx4 + c4);
        }
#pragma unroll
        for (int k = 0; k < ROWS_PER_THREAD; ++k) {
            const long long row = row0 + (long long)k * blockDim.y;
            if (row < n_rows) o4[row * n4 + c4] = v[k];
        }
    }
}

extern "C" __global__ void matrix_copy_kernel_scalar(const float *__restrict__ x,
                                                     float *__restrict__ out, int n_rows,
                                                     int n_cols, long long stride_xm)
{
    const long long col = (long long)blockIdx.x * TILE + threadIdx.x;
    if (col >= n_cols) return;
    for (long long band = blockIdx.y; band * TILE < n_rows; band += gridDim.y) {
#pragma unroll
        for (int k = 0; k < TILE; k += BLOCK_ROWS) {
            const long long row = band * TILE + threadIdx.y + k;
            if (row < n_rows) out[row * n_cols + col] = x[row * stride_xm + col];
        }
    }
}

