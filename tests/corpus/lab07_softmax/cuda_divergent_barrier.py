# impl: cuda
# status: exception
# reason: divergent barrier
# reason: line 15
# status-gpu: timeout
# reason-gpu: killed after 20 s
# timeout-gpu: 20
# (the tree reduction's barrier moved inside the `if`: only the threads still adding wait at
#  it, the others go on to the barrier after the loop. The CPU backend names both lines. On an
#  H200 the block never gets past it: the launch hangs and is killed at the time limit.)

# %% nbgrader={"grade_id": "softmax_cu", "solution": true}
SOFTMAX_CU = r"""
__device__ float block_reduce(float v, bool is_max)
{
    __shared__ float partial[1024];
    partial[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            float other = partial[threadIdx.x + half];
            partial[threadIdx.x] = is_max ? fmaxf(partial[threadIdx.x], other)
                                          : partial[threadIdx.x] + other;
            __syncthreads();
        }
    }
    __syncthreads();
    float result = partial[0];
    __syncthreads();
    return result;
}

__global__ void softmax_kernel(const float *x, float *out, int n_cols, int stride_xr)
{
    const float *row_in = x + (size_t)blockIdx.x * stride_xr;
    float *row_out = out + (size_t)blockIdx.x * n_cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) m = fmaxf(m, row_in[c]);
    m = block_reduce(m, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) s += expf(row_in[c] - m);
    s = block_reduce(s, false);
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) row_out[c] = expf(row_in[c] - m) / s;
}
"""

# %% nbgrader={"grade_id": "softmax_cuda", "solution": true}
softmax_kernel_cu = SourceModule(SOFTMAX_CU).get_function("softmax_kernel")


def softmax_cuda(x, out):
    n_rows, n_cols = x.shape
    softmax_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_cols),
                      np.int32(x.stride(0)), block=(256, 1, 1), grid=(n_rows, 1))
