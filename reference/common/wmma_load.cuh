// WMMA fragment loads from shared memory for the hidden CUDA references (lab14, lab15, lab16):
// load_fragment(f, p, ldm) is wmma::load_matrix_sync, except for bfloat16 on the GPU.
//
// nvcc 13 writes load_matrix_sync of a bfloat16 fragment as a wmma.load without a state space
// (for float16 and int8 it writes .shared where the pointer is shared), and ptxas turns a generic
// wmma.load into four 32-bit generic loads a fragment (LD.E) where a shared one is one ldmatrix
// (LDSM.16.M88.4). The shared pipelined GEMM (linear_wmma.cuh) ran at half of lab10's float16
// rate with the generic loads: 193-197 TFLOP/s at 4096^3 on an H100, 262 with these. The
// overloads below write the same wmma.load with .shared, the fragment's registers passed as
// mma.hpp passes them; everything else is load_matrix_sync (the template). The CPU backend runs
// no PTX and defines no __CUDA_ARCH__: it keeps load_matrix_sync everywhere.
//
// Not a lab: a launcher puts this file's text first in the source it compiles.

#include <cuda_bf16.h>
#include <mma.h>

template <class Fragment, class T>
__device__ __forceinline__ void load_fragment(Fragment &f, const T *p, unsigned ldm)
{
    nvcuda::wmma::load_matrix_sync(f, p, ldm);
}

#if defined(__CUDA_ARCH__)
// One overload per (operand, layout) that the references load.
#define WMMA_LOAD_BF16(USE, LAYOUT, OP, ROW_COL)                                                   \
    __device__ __forceinline__ void load_fragment(                                                 \
        nvcuda::wmma::fragment<nvcuda::wmma::USE, 16, 16, 16, __nv_bfloat16,                       \
                               nvcuda::wmma::LAYOUT> &f,                                           \
        const __nv_bfloat16 *p, unsigned ldm)                                                      \
    {                                                                                              \
        unsigned *r = reinterpret_cast<unsigned *>(&f); /* the fragment's 4 registers */           \
        const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(p));                    \
        asm volatile("wmma.load." OP ".sync.aligned." ROW_COL ".m16n16k16.shared.bf16 "            \
                     "{%0, %1, %2, %3}, [%4], %5;"                                                 \
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])                              \
                     : "r"(at), "r"(ldm));                                                         \
    }
WMMA_LOAD_BF16(matrix_a, row_major, "a", "row")
WMMA_LOAD_BF16(matrix_b, col_major, "b", "col")
WMMA_LOAD_BF16(matrix_b, row_major, "b", "row")
#undef WMMA_LOAD_BF16
#endif
