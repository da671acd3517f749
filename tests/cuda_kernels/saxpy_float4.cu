// out = a * x + y, four elements per thread through float4 loads and stores.
// Thread t handles elements 4t..4t+3 when they all exist; the last n % 4 elements (the tail)
// are handled one each by threads 0..2, so any n works. x, y and out must be 16-byte
// aligned (cudaMalloc and torch allocations are).
__global__ void saxpy_float4(const float *__restrict__ x, const float *__restrict__ y,
                             float *__restrict__ out, float a, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (t < n4) {
        float4 xv = reinterpret_cast<const float4 *>(x)[t];
        float4 yv = reinterpret_cast<const float4 *>(y)[t];
        float4 r = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
        reinterpret_cast<float4 *>(out)[t] = r;
    }
    int tail = n4 * 4 + t;
    if (t < n - n4 * 4) {
        out[tail] = a * x[tail] + y[tail];
    }
}
