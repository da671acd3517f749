# impl: cuda
# status: fail
# reason: [n=1]
# reason: computed as NaN
# reason: without zeroing it first
# (a correct kernel whose launcher forgets out.zero_(): atomicAdd adds to what out holds, and
#  outputs arrive filled with NaN, so NaN + the sum = NaN. The message says the NaN was
#  computed, not left unwritten, and names the likely cause.)

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

__global__ void vector_sum_kernel(const float *x, float *out, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
}
"""

# %% nbgrader={"grade_id": "vector_sum_cuda", "solution": true}
vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")


def vector_sum_cuda(x, out):
    n = x.numel()
    # missing: out.zero_()
    vector_sum_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                  block=(256, 1, 1), grid=(max(1, min(triton.cdiv(n, 256), 1024)), 1))
