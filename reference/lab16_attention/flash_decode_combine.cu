// The combine pass of lab16's CUDA flash-decoding reference (after flash_decode_wmma.cu's split
// pass, unless FUSED_COMBINE): the float32 partials of a query head's splits (the sum of p . v, the
// max m_t in base 2, the sum of p) merged exactly, each rescaled by exp2(m_t - m) to the common
// max, then o = sum / l rounded to bfloat16. Traffic: the partials, b hq splits (D + 2) floats,
// read once; o written once.
#include <cuda_bf16.h>

// One block of D threads per query head: its splits, each rescaled to the common max.
extern "C" __global__ void flash_decode_combine_kernel(const float *__restrict__ part_o,
                                                 const float *__restrict__ part_m,
                                                 const float *__restrict__ part_l,
                                                 __nv_bfloat16 *__restrict__ o, int splits)
{
    const int d = blockDim.x, c = threadIdx.x;
    const long long first = (long long)blockIdx.x * splits;
    float m = -INFINITY;
    for (int t = 0; t < splits; ++t) m = fmaxf(m, part_m[first + t]);
    float sum_l = 0.0f, sum_o = 0.0f;
    for (int t = 0; t < splits; ++t) {
        const float w = exp2f(part_m[first + t] - m);
        sum_l += w * part_l[first + t];
        sum_o += w * part_o[(first + t) * d + c];
    }
    o[(long long)blockIdx.x * d + c] = __float2bfloat16_rn(sum_o / sum_l);
}
