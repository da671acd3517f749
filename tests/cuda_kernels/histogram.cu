// Histograms with atomics. Grid-stride loops, so any grid covers any n.
#define NBINS 64

// bins[b] += number of i with data[i] % NBINS == b (data >= 0): per-block counts with shared
// atomics, then one global atomicAdd per non-empty bin per block.
__global__ void histogram(const int *__restrict__ data, unsigned int *bins, int n)
{
    __shared__ unsigned int local[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % NBINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

// sums[b] += weight[i] for data[i] % NBINS == b, straight to global memory (float atomics
// from every block at once), and max_weight = the largest weight (atomicMax on int bits of
// non-negative floats, whose order matches the floats').
__global__ void weighted_histogram(const int *__restrict__ data, const float *__restrict__ weight,
                                   float *sums, int *max_bits, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&sums[data[i] % NBINS], weight[i]);
        atomicMax(max_bits, __float_as_int(weight[i]));
    }
}
