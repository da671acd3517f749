// tclab: no_extern_c
// Integer tensor cores through nvcuda::wmma: 8-bit signed or unsigned multiplicands, an int
// accumulator (exact; satf clamps instead of wrapping), on both backends. One warp a tile.
#include <mma.h>
using namespace nvcuda;

// D = A @ B + C, 16x16x16: A row-major, B column-major (ld 16 each), C and D row-major.
template <class T>
__device__ void tile(const T *a, const T *b, const int *c, int *d, int satf)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(acc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc, satf != 0);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void tile_s8(const signed char *a, const signed char *b, const int *c,
                                   int *d, int satf)
{
    tile(a, b, c, d, satf);
}

extern "C" __global__ void tile_u8(const unsigned char *a, const unsigned char *b, const int *c,
                                   int *d, int satf)
{
    tile(a, b, c, d, satf);
}

// The other shapes, C = 0: A row-major M x 16, B column-major 16 x N, D row-major M x N.
template <int M, int N>
__device__ void shape(const signed char *a, const signed char *b, int *d)
{
    wmma::fragment<wmma::matrix_a, M, N, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, N, wmma::mem_row_major);
}

extern "C" __global__ void shape_32x8(const signed char *a, const signed char *b, int *d)
{
    shape<32, 8>(a, b, d);
}

extern "C" __global__ void shape_8x32(const signed char *a, const signed char *b, int *d)
{
    shape<8, 32>(a, b, d);
}

extern "C" __global__ void sizes(int *out)
{
    if (threadIdx.x != 0) return;
    out[0] = wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major>::num_elements;
    out[1] = wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major>::num_elements;
    out[2] = wmma::fragment<wmma::accumulator, 16, 16, 16, int>::num_elements;
    out[3] = wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::row_major>::num_elements;
    out[4] = wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::col_major>::num_elements;
    out[5] = wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::row_major>::num_elements;
    out[6] = wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::col_major>::num_elements;
}

// Negative control: half the warp returns before the load (a partial warp).
extern "C" __global__ void partial_warp(const signed char *a, int *d)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    if (threadIdx.x >= 16) return;
    wmma::load_matrix_sync(fa, a, 16);  // control: partial_warp
    d[threadIdx.x] = fa.x[0];
}
