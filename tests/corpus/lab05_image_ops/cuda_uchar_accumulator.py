# impl: cuda
# exercise: rgb_to_gray
# status: fail
# reason: lab05_image_ops/rgb_to_gray [
# reason: elements differ

# %% nbgrader={"grade_id": "rgb_to_gray_cu", "solution": true}
# C computes 77 * r + ... in int, but the sum is kept in a byte-sized variable (the output's
# type, declared too early): it wraps around at 256, and the >> 8 of a byte is 0, so almost
# every pixel comes out black.
RGB_TO_GRAY_CU = r"""
__global__ void rgb_to_gray_kernel(const unsigned char *rgb, unsigned char *gray, int n_pixels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_pixels) {
        unsigned char sum = 77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2] + 128;
        gray[i] = sum >> 8;
    }
}
"""

# %% nbgrader={"grade_id": "rgb_to_gray_cuda", "solution": true}
rgb_to_gray_kernel_cu = SourceModule(RGB_TO_GRAY_CU).get_function("rgb_to_gray_kernel")


def rgb_to_gray_cuda(rgb, gray):
    n = gray.numel()
    rgb_to_gray_kernel_cu(np.uintp(rgb.data_ptr()), np.uintp(gray.data_ptr()), np.int32(n),
                          block=(256, 1, 1), grid=((n + 255) // 256, 1))
