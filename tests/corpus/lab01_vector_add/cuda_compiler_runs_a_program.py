# impl: cuda
# status: compile_error
# reason: is not accepted here
# (a cheat: compiler options that make gcc run a shell command while the device process
#  compiles the kernel, where the data is; options that name a program or a file are refused)

# %% nbgrader={"grade_id": "vector_add_cu", "solution": true}
VECTOR_ADD_CU = r"""
extern "C" __global__ void vector_add_kernel_f32(const float *x, const float *y, float *out,
                                                 int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + y[i];
}
"""

# %% nbgrader={"grade_id": "vector_add_cuda", "solution": true}
def vector_add_cuda(x, y, out):
    n = out.numel()
    module = SourceModule(VECTOR_ADD_CU,
                          options=["-Xcompiler", "-wrapper,/bin/sh,-c,id>/tmp/ran;exec $0 $@"])
    module.get_function("vector_add_kernel_f32")(
        np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
        block=(256, 1, 1), grid=((n + 255) // 256, 1))
