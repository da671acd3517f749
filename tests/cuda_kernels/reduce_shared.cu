// Sum of in[0..n): each block adds 2 * BLOCK elements in a shared-memory tree and writes its
// partial sum; the host adds the partials. Launch with blockDim.x == BLOCK.
#define BLOCK 256

__global__ void reduce_sum(const float *__restrict__ in, float *__restrict__ partial, int n)
{
    __shared__ float s[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * (2 * BLOCK) + tid;
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + BLOCK < n) v += in[i + BLOCK];
    s[tid] = v;
    __syncthreads();  // every s[] is written before anyone reads a neighbour's
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();  // this level is complete before the next reads it
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}
