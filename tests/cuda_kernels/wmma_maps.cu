// tclab: no_extern_c
// The element -> tile position map of WMMA's 16x16x16 fragments of 8 elements a lane: each lane
// writes, for each element, the number its fragment loaded from a tile of 16 row + column.
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void maps(const float *numbers, const __nv_bfloat16 *numbers_bf16,
                                int *acc_map, int *a_map, int *b_map)
{
    const int lane = threadIdx.x % 32;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::load_matrix_sync(c, numbers, 16, wmma::mem_row_major);
    wmma::load_matrix_sync(a, numbers_bf16, 16);
    wmma::load_matrix_sync(b, numbers_bf16, 16);
    for (int e = 0; e < 8; ++e) {
        acc_map[8 * lane + e] = (int)c.x[e];
        a_map[8 * lane + e] = (int)__bfloat162float(a.x[e]);
        b_map[8 * lane + e] = (int)__bfloat162float(b.x[e]);
    }
}
