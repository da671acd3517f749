// tclab: no_extern_c
// Negative control: a tensor-core tile written with inline PTX (mma.sync, one m16n8k16 step of
// the warp's fragments, each lane passing its registers). Valid CUDA, and nvcc compiles it, but
// the CPU backend cannot run PTX: it must refuse the source with a CompileError naming the
// line of the asm (marked as the control) and pointing to nvcuda::wmma, which runs on both.
// status: CompileError on the CPU backend.
#include <cuda_fp16.h>
#include <stdint.h>

extern "C" __global__ void mma_ptx(const uint32_t *a, const uint32_t *b, float *d)
{
    const int lane = threadIdx.x % 32;
    const uint32_t a0 = a[4 * lane], a1 = a[4 * lane + 1], a2 = a[4 * lane + 2],
                   a3 = a[4 * lane + 3];
    const uint32_t b0 = b[2 * lane], b1 = b[2 * lane + 1];
    float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
    asm volatile(  // control: mma_ptx
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("" ::: "memory");  // a compiler barrier: no PTX, fine on both backends
    d[4 * lane] = c0;
    d[4 * lane + 1] = c1;
    d[4 * lane + 2] = c2;
    d[4 * lane + 3] = c3;
}
