# impl: cuda
# exercise: dequant_int4
# status: fail
# reason: lab12_dequant/dequant_int4 [
# reason: elements differ
# (The output rounded twice: n * s - 8 * s with n * s kept in a bfloat16 variable, as a kernel
# that folds the offset into a precomputed bias would. n * s (up to 12 significant bits) is
# rounded to bfloat16 before the subtraction, which is rounded again; where n - 8 is small the
# first rounding's error is several ulp of the result (n = 9: up to 4.5 ulp). About one element
# in eight fails the one-ulp tolerance. The roundings are explicit conversions: written with
# __nv_bfloat16 operators instead (`bf16(n) * sb - bias`), nvcc contracts the multiply and the
# subtraction into one fma that rounds once, and that kernel is correct on a GPU (measured on
# an H200: 17/17 shapes), while the CPU backend rounds after each operator.)

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
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&v);
    uint4 o[4];
    __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(o);
    const float s = __bfloat162float(scale[(size_t)row * stride_sr + c / 4]);
    const float bias = 8.0f * s;  // the offset, scaled (exact)
    for (int j = 0; j < 16; ++j) {
        // n * s kept in bfloat16 (one rounding), then the bias subtracted (a second one)
        const __nv_bfloat16 lo_ns = __float2bfloat16_rn((float)(b[j] & 0xF) * s);
        const __nv_bfloat16 hi_ns = __float2bfloat16_rn((float)(b[j] >> 4) * s);
        o2[j] = __floats2bfloat162_rn(__bfloat162float(lo_ns) - bias,
                                      __bfloat162float(hi_ns) - bias);
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
