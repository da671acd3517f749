// tclab: no_extern_c
// 16-bit floats. <cuda_fp16.h> cannot sit inside pycuda's extern "C" { } wrapper, so this file
// is compiled with no_extern_c=True and marks its kernels extern "C" itself.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// Round trips float -> __half -> float and float -> __nv_bfloat16 -> float.
extern "C" __global__ void round_trip(const float *x, float *via_half, float *via_bf16, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        via_half[i] = __half2float(__float2half(x[i]));
        via_bf16[i] = __bfloat162float(__float2bfloat16(x[i]));
    }
}

// out = a * x + y on __half storage, computed in float.
extern "C" __global__ void haxpy(const __half *x, const __half *y, __half *out, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float2half(a * __half2float(x[i]) + __half2float(y[i]));
}
