# impl: cuda
# status: compile_error
# reason: compile error in CUDA C vector_add_kernel
# (g++ reports the missing ';' at the end of line 5, nvcc at the next token, on line 6)
# reason-any: kernel.cu:5 | kernel.cu:6

# %% nbgrader={"grade_id": "vector_add_cu", "solution": true}
VECTOR_ADD_CU = r"""
__global__ void vector_add_kernel(const float *x, const float *y, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + y[i]   // line 5: the semicolon is missing
}
"""

# %% nbgrader={"grade_id": "vector_add_cuda", "solution": true}
vector_add_kernel_cu = SourceModule(VECTOR_ADD_CU).get_function("vector_add_kernel")


def vector_add_cuda(x, y, out):
    n = out.numel()
    vector_add_kernel_cu(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
                         np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
