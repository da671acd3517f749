// Built-in indices in three dimensions, and __syncthreads_count.

// Every thread writes its own coordinates at its global linear id:
// out[4 * id .. 4 * id + 3] = (threadIdx linear, blockIdx linear, blockDim total, gridDim total).
__global__ void thread_ids(int *out)
{
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int per_block = blockDim.x * blockDim.y * blockDim.z;
    int id = b * per_block + t;
    out[4 * id + 0] = t;
    out[4 * id + 1] = b;
    out[4 * id + 2] = per_block;
    out[4 * id + 3] = gridDim.x * gridDim.y * gridDim.z;
}

// counts[block] = number of positive elements in the block's slice.
__global__ void count_positive(const float *x, int *counts, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int c = __syncthreads_count(i < n && x[i] > 0.0f);
    if (threadIdx.x == 0) counts[blockIdx.x] = c;
}
