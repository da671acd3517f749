# impl: cuda
# status: fail
# reason: out-of-bounds write
# reason: [n=1, float32]

# %% nbgrader={"grade_id": "vector_add_cu", "solution": true}
VECTOR_ADD_CU = r"""
__global__ void vector_add_kernel(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Reads are guarded, the store is not: the last block writes past the end of out.
    out[i] = i < n ? x[i] + y[i] : 0.0f;
}
"""

# %% nbgrader={"grade_id": "vector_add_cuda", "solution": true}
vector_add_kernel_cu = SourceModule(VECTOR_ADD_CU).get_function("vector_add_kernel")


def vector_add_cuda(x, y, out):
    n = out.numel()
    vector_add_kernel_cu(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
                         np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
