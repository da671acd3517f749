// tclab: no_extern_c
// Negative controls: each kernel breaks one rule CUDA states for nvcuda::wmma or the pipeline
// primitives. nvcc compiles them all; on a GPU each is undefined behaviour (wrong values, a
// hang, a fault, or seeming to work); on the CPU backend each must fail its launch with a
// LaunchError naming the call and the kernel.cu line marked "// control: <kernel>".
// status: LaunchError, one launch each, 32 threads (one warp) unless said otherwise.
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> Acc;

// reason: half the warp loads A in a branch while the other half goes on to the mma_sync.
extern "C" __global__ void divergent_load(const __half *a, const __half *b, float *d)
{
    FragA fa;
    FragB fb;
    Acc acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::fill_fragment(fa, 0.0f);
    if (threadIdx.x % 32 < 16) {
        wmma::load_matrix_sync(fa, a, 16);  // control: divergent_load
    }
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d, acc, 16, wmma::mem_row_major);
}

// reason: the lanes of warp 1 return before its store.
extern "C" __global__ void early_return(float *d)
{
    Acc acc;
    wmma::fill_fragment(acc, 1.0f);
    if (threadIdx.x >= 40) return;
    float *tile = d + threadIdx.x / 32 * 256;
    wmma::store_matrix_sync(tile, acc, 16, wmma::mem_row_major);  // control: early_return
}

// reason: each lane passes its own row of A, as if the call were per thread.
extern "C" __global__ void lane_pointers(const __half *a, float *d)
{
    FragA fa;
    wmma::load_matrix_sync(fa, a + threadIdx.x % 16 * 16, 16);  // control: lane_pointers
    d[threadIdx.x] = __half2float(fa.x[0]);
}

// reason: the lanes disagree on the layout of the stored tile.
extern "C" __global__ void lane_layouts(float *d)
{
    Acc acc;
    wmma::fill_fragment(acc, 1.0f);
    const wmma::layout_t layout = threadIdx.x < 16 ? wmma::mem_row_major : wmma::mem_col_major;
    wmma::store_matrix_sync(d, acc, 16, layout);  // control: lane_layouts
}

// reason: ldm (a kernel argument: 20) is not a multiple of 8 halves.
extern "C" __global__ void bad_ldm(const __half *a, float *d, int ldm)
{
    FragA fa;
    wmma::load_matrix_sync(fa, a, ldm);  // control: bad_ldm
    d[threadIdx.x] = __half2float(fa.x[0]);
}

// reason: the tile starts 8 halves (16 bytes) into a 32-byte aligned buffer.
extern "C" __global__ void misaligned(const __half *a, float *d)
{
    FragA fa;
    wmma::load_matrix_sync(fa, a + 8, 16);  // control: misaligned
    d[threadIdx.x] = __half2float(fa.x[0]);
}

// reason: 12 is not a size cp.async can copy (4, 8 or 16 bytes).
extern "C" __global__ void pipeline_bad_size(const float *src, float *out)
{
    __shared__ __align__(16) float stage[4 * 32];
    const int i = 4 * threadIdx.x;
    __pipeline_memcpy_async(stage + i, src + i, 12);  // control: pipeline_bad_size
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[threadIdx.x] = stage[4 * threadIdx.x];
}

// reason: a 16-byte copy from a source that is only 4-byte aligned.
extern "C" __global__ void pipeline_misaligned(const float *src, float *out)
{
    __shared__ __align__(16) float stage[4 * 32];
    const int i = 4 * threadIdx.x;
    __pipeline_memcpy_async(stage + i, src + i + 1, 16);  // control: pipeline_misaligned
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[threadIdx.x] = stage[4 * threadIdx.x];
}
