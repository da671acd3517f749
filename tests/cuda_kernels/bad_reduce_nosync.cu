// NEGATIVE CONTROL: reduce_shared.cu with the first __syncthreads() missing. Thread 0 reads
// s[128] before thread 128 has written it (or after, depending on the schedule): a race.
#define BLOCK 256

__global__ void reduce_sum_nosync(const float *__restrict__ in, float *__restrict__ partial,
                                  int n)
{
    __shared__ float s[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * (2 * BLOCK) + tid;
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + BLOCK < n) v += in[i + BLOCK];
    s[tid] = v;
    // missing: __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}
