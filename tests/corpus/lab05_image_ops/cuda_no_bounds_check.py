# impl: cuda
# exercise: invert
# status: fail
# reason: out-of-bounds write
# reason: [h=1, w=1, c=4, uint8]

# %% nbgrader={"grade_id": "invert_cu", "solution": true}
# One pixel per thread, and no bounds check on the store: the block of the 1-pixel image
# writes 255 pixels past its end.
INVERT_CU = r"""
__global__ void invert_kernel(const uchar4 *rgba, uchar4 *out, int n_pixels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uchar4 p = i < n_pixels ? rgba[i] : make_uchar4(0, 0, 0, 0);
    out[i] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);
}
"""

# %% nbgrader={"grade_id": "invert_cuda", "solution": true}
invert_kernel_cu = SourceModule(INVERT_CU).get_function("invert_kernel")


def invert_cuda(rgba, out):
    n = out.numel() // 4
    invert_kernel_cu(np.uintp(rgba.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                     block=(256, 1, 1), grid=((n + 255) // 256, 1))
