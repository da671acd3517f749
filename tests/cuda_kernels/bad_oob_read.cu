// NEGATIVE CONTROL: a 3-point stencil whose bounds test lets the last thread read x[n]
// (and the first read x[-1]): out-of-bounds reads that usually go unnoticed.
__global__ void blur3(const float *__restrict__ x, float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0f;  // should clamp at 0 and n - 1
    }
}

// Reads one element past the end only: x[i + 1] at i == n - 1.
__global__ void forward_diff(const float *__restrict__ x, float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i + 1] - x[i];
    }
}
