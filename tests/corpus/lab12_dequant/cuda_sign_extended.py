# impl: cuda
# exercise: dequant_int4
# status: fail
# reason: lab12_dequant/dequant_int4 [
# reason: elements differ
# (Each nibble sign-extended as a 4-bit two's complement number, the shift idiom
# (int)(x << 28) >> 28, instead of the lab's offset of 8: the same range, -8 to 7, but another
# code. 0x0 gives 0 instead of -8, 0xF gives -1 instead of 7: every nibble differs (by 8), so
# every element is wrong, zero weights included.)

# %% nbgrader={"grade_id": "dequant_int4_cu", "solution": true}
DEQUANT_INT4_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void dequant_int4_kernel(const unsigned char *__restrict__ packed,
                                               const __nv_bfloat16 *__restrict__ scale,
                                               __nv_bfloat16 *__restrict__ out, int n_rows,
                                               int n_cols, int stride_pr, int stride_sr)
{
    const int chunks_per_row = n_cols / 32;
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n_rows * chunks_per_row) return;
    const int row = g / chunks_per_row;
    const int c = g - row * chunks_per_row;
    const uint4 v = *reinterpret_cast<const uint4 *>(packed + (size_t)row * stride_pr + 16 * c);
    const float s = __bfloat162float(scale[(size_t)row * stride_sr + c / 4]);
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&v);
    uint4 o[4];
    __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(o);
    for (int j = 0; j < 16; ++j) {
        const float lo = (float)((int)((unsigned)b[j] << 28) >> 28);  // bits 0-3, signed
        const float hi = (float)((int)((unsigned)b[j] << 24) >> 28);  // bits 4-7, signed
        o2[j] = __floats2bfloat162_rn(lo * s, hi * s);
    }
    uint4 *dst = reinterpret_cast<uint4 *>(out + (size_t)g * 32);
    for (int k = 0; k < 4; ++k) dst[k] = o[k];
}
"""

# %% nbgrader={"grade_id": "dequant_int4_cuda", "solution": true}
dequant_int4_kernel_cu = SourceModule(DEQUANT_INT4_CU, no_extern_c=True).get_function(
    "dequant_int4_kernel")


def dequant_int4_cuda(packed, scale, out):
    rows, cols = out.shape
    n_chunks = rows * (cols // 32)
    dequant_int4_kernel_cu(np.uintp(packed.data_ptr()), np.uintp(scale.data_ptr()),
                           np.uintp(out.data_ptr()), np.int32(rows), np.int32(cols),
                           np.int32(packed.stride(0)), np.int32(scale.stride(0)),
                           block=(256, 1, 1), grid=(triton.cdiv(n_chunks, 256), 1))
