# impl: cuda
# status: pass
# (honest work: the handout's deterministic alternative to atomics. A scratch buffer of one
#  partial sum per block (an allocation), the kernel launched twice: once over x into the
#  partials, once with a single block over the partials into out. No zeroing needed, and the
#  same input gives the same bits every run)

# %% nbgrader={"grade_id": "vector_sum_cu", "solution": true}
VECTOR_SUM_CU = r"""
__device__ float warp_reduce_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

__device__ float block_reduce_sum(float v)
{
    __shared__ float per_warp[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_reduce_sum(v);
    if (lane == 0) per_warp[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_reduce_sum(lane < (int)blockDim.x / 32 ? per_warp[lane] : 0.0f);
    return v;
}

// Block b writes the sum of its grid-stride share of x to out[b]: one float per block.
__global__ void vector_sum_kernel(const float *x, float *out, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}
"""

# %% nbgrader={"grade_id": "vector_sum_cuda", "solution": true}
vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")


def vector_sum_cuda(x, out):
    n = x.numel()
    blocks = max(1, min(triton.cdiv(n, 1024), 1024))
    partial = torch.empty(blocks, dtype=torch.float32, device=x.device)
    vector_sum_kernel_cu(np.uintp(x.data_ptr()), np.uintp(partial.data_ptr()), np.int32(n),
                  block=(256, 1, 1), grid=(blocks, 1))
    vector_sum_kernel_cu(np.uintp(partial.data_ptr()), np.uintp(out.data_ptr()), np.int32(blocks),
                  block=(1024, 1, 1), grid=(1, 1))
