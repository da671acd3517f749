// out[r, :] = softmax(x[r, :]) for a rows x cols matrix, one block per row. blockDim.x is a
// power of two; the launch passes shared = blockDim.x * sizeof(float).

// Max (take_max) or sum of one value per thread, through dynamic shared memory.
__device__ float block_combine(float v, bool take_max)
{
    extern __shared__ float scratch[];
    scratch[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) {
            float other = scratch[threadIdx.x + half];
            scratch[threadIdx.x] = take_max ? fmaxf(scratch[threadIdx.x], other)
                                            : scratch[threadIdx.x] + other;
        }
        __syncthreads();
    }
    float result = scratch[0];
    __syncthreads();  // scratch is reused by the next call
    return result;
}

__global__ void softmax_rows(const float *__restrict__ x, float *__restrict__ out, int cols)
{
    const float *row = x + (size_t)blockIdx.x * cols;
    float *dst = out + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    m = block_combine(m, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - m);
    s = block_combine(s, false);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = __expf(row[c] - m) * inv;
}
