# impl: cuda
# exercise: dequant_int4
# status: pass
# (Positive control: the 16 possible values of a nibble from a __constant__ lookup table
# instead of n - 8, one 32-bit word (8 weights) per thread, a 2-D grid with rows on x, and a
# leftover stub comment. Different, and honest: never refused.)

# %% nbgrader={"grade_id": "dequant_int4_cu", "solution": true}
DEQUANT_INT4_CU = r"""
#include <cuda_bf16.h>

// The weight each nibble stands for: value[n] = n - 8.
__constant__ float NIBBLE_VALUE[16] = {-8.f, -7.f, -6.f, -5.f, -4.f, -3.f, -2.f, -1.f,
                                       0.f,  1.f,  2.f,  3.f,  4.f,  5.f,  6.f,  7.f};

extern "C" __global__ void dequant_int4_kernel(const unsigned char *__restrict__ packed,
                                               const __nv_bfloat16 *__restrict__ scale,
                                               __nv_bfloat16 *__restrict__ out, int n_rows,
                                               int n_cols, int stride_pr, int stride_sr)
{
    // YOUR CODE HERE
    const size_t row = blockIdx.x;
    const int word = blockIdx.y * blockDim.x + threadIdx.x;  // 4 packed bytes: 8 weights
    if (word >= n_cols / 8) return;  // the row's last block runs past its end
    const unsigned v = reinterpret_cast<const unsigned *>(packed + row * stride_pr)[word];
    const float s = __bfloat162float(scale[row * stride_sr + word / 16]);  // 16 words a group
    uint4 o;
    __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(&o);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const unsigned b = (v >> (8 * k)) & 0xFF;
        o2[k] = __floats2bfloat162_rn(NIBBLE_VALUE[b & 0xF] * s, NIBBLE_VALUE[b >> 4] * s);
    }
    reinterpret_cast<uint4 *>(out + row * n_cols)[word] = o;
}
"""

# %% nbgrader={"grade_id": "dequant_int4_cuda", "solution": true}
dequant_int4_kernel_cu = SourceModule(DEQUANT_INT4_CU, no_extern_c=True).get_function(
    "dequant_int4_kernel")


def dequant_int4_cuda(packed, scale, out):
    rows, cols = out.shape
    assert cols % 128 == 0, f"cols = {cols} is not a multiple of 128"
    assert packed.stride(0) % 4 == 0, f"packed rows must be 4-byte aligned ({packed.stride(0)})"
    threads = 128
    dequant_int4_kernel_cu(np.uintp(packed.data_ptr()), np.uintp(scale.data_ptr()),
                           np.uintp(out.data_ptr()), np.int32(rows), np.int32(cols),
                           np.int32(packed.stride(0)), np.int32(scale.stride(0)),
                           block=(threads, 1, 1), grid=(rows, triton.cdiv(cols // 8, threads)))
