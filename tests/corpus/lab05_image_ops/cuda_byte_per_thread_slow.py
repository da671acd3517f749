# impl: cuda
# exercise: invert
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% nbgrader={"grade_id": "invert_cu", "solution": true}
# Correct but slow: one byte per thread. A warp's load moves 32 bytes where a uint4 per
# thread moves 512; too few bytes in flight to keep HBM busy.
INVERT_CU = r"""
__global__ void invert_kernel(const unsigned char *rgba, unsigned char *out, int n_bytes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_bytes) out[i] = i % 4 == 3 ? rgba[i] : 255 - rgba[i];
}
"""

# %% nbgrader={"grade_id": "invert_cuda", "solution": true}
invert_kernel_cu = SourceModule(INVERT_CU).get_function("invert_kernel")


def invert_cuda(rgba, out):
    n_bytes = out.numel()
    invert_kernel_cu(np.uintp(rgba.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_bytes),
                     block=(256, 1, 1), grid=((n_bytes + 255) // 256, 1))
