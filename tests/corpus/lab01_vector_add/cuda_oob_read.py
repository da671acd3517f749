# impl: cuda
# status: memory_error
# reason-any: out-of-bounds read in kernel vector_add_kernel | Invalid __global__ read

# %% nbgrader={"grade_id": "vector_add_cu", "solution": true}
VECTOR_ADD_CU = r"""
__global__ void vector_add_kernel(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // Reads one whole block past the end of x: the value is never used, so every output is
        // right and only a memory checker can tell (the CPU backend's checked mode, or
        // compute-sanitizer on a GPU).
        float past_the_end = x[i + blockDim.x];
        out[i] = x[i] + y[i] + (past_the_end == 3.0e38f ? 1.0f : 0.0f);
    }
}
"""

# %% nbgrader={"grade_id": "vector_add_cuda", "solution": true}
vector_add_kernel_cu = SourceModule(VECTOR_ADD_CU).get_function("vector_add_kernel")


def vector_add_cuda(x, y, out):
    n = out.numel()
    vector_add_kernel_cu(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
                         np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
