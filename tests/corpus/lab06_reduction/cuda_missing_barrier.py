# impl: cuda
# device: cpu
# status: race
# reason: the result depends on thread order
# reason: A missing __syncthreads()?
# (the classic shared-memory tree with the barrier inside the loop left out: each step reads
#  sums that other threads' previous step may not have written yet. Without a GPU the CPU
#  backend runs each block's threads forward, then in reverse order: one order reads stale
#  sums, the other does not, so the two results differ. On a GPU the outcome depends on how
#  the warps happen to be scheduled: often right, sometimes not)

# %% nbgrader={"grade_id": "vector_sum_cu", "solution": true}
VECTOR_SUM_CU = r"""
__global__ void vector_sum_kernel(const float *x, float *out, int n)
{
    __shared__ float partial[256];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i];
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        // missing: __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}
"""

# %% nbgrader={"grade_id": "vector_sum_cuda", "solution": true}
vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")


def vector_sum_cuda(x, out):
    n = x.numel()
    out.zero_()
    vector_sum_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                  block=(256, 1, 1), grid=(max(1, min(triton.cdiv(n, 256), 1024)), 1))
