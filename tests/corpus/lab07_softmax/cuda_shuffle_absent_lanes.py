# impl: cuda
# status: exception
# reason: __shfl_xor_sync at kernel.cu line 7
# reason: which do not exist
# status-gpu: pass
# (a warp-shuffle reduction with a full mask, launched with one thread per column up to 256:
#  a row of 100 columns gives a block of 100 threads, whose last warp has 4 lanes; the mask
#  names 28 lanes that do not exist. Undefined behaviour, which the CPU backend refuses. On an
#  H200 it computes the right result and compute-sanitizer's synccheck reports nothing (lanes
#  past the block count as inactive there): the GPU grades it correct.)

# %% nbgrader={"grade_id": "softmax_cu", "solution": true}
SOFTMAX_CU = r"""
#define FULL 0xffffffffu

__device__ float warp_reduce(float v, bool is_max)
{
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) {
        float other = __shfl_xor_sync(FULL, v, lane_mask);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    return v;
}

__device__ float block_reduce(float v, bool is_max)
{
    __shared__ float per_warp[32];
    v = warp_reduce(v, is_max);
    if (threadIdx.x % 32 == 0) per_warp[threadIdx.x / 32] = v;
    __syncthreads();
    int n_warps = (blockDim.x + 31) / 32;
    float r = is_max ? -INFINITY : 0.0f;
    for (int w = 0; w < n_warps; w++) r = is_max ? fmaxf(r, per_warp[w]) : r + per_warp[w];
    __syncthreads();
    return r;
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
    threads = min(n_cols, 256)  # one thread per column, up to 256
    softmax_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_cols),
                      np.int32(x.stride(0)), block=(threads, 1, 1), grid=(n_rows, 1))
