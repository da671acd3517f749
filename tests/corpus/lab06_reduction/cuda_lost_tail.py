# impl: cuda
# status: fail
# reason: [n=1]
# reason: elements differ
# (float4 loads over n / 4 whole float4s, and nothing for the n % 4 floats after them: n = 1
#  sums nothing; the kernel also handles the unaligned head, so only the tail is lost)

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
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int head = (int)((16 - (size_t)x % 16) % 16) / 4;
    if (head > n) head = n;
    const float4 *x4 = reinterpret_cast<const float4 *>(x + head);
    float v = i < head ? x[i] : 0.0f;
    for (int k = i; k < (n - head) / 4; k += gridDim.x * blockDim.x) {
        const float4 q = x4[k];
        v += (q.x + q.y) + (q.z + q.w);
    }
    // missing: the (n - head) % 4 floats after the last float4
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
}
"""

# %% nbgrader={"grade_id": "vector_sum_cuda", "solution": true}
vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")


def vector_sum_cuda(x, out):
    n = x.numel()
    out.zero_()
    vector_sum_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                  block=(256, 1, 1), grid=(max(1, min(triton.cdiv(n, 1024), 1024)), 1))
