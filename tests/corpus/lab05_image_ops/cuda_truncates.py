# impl: cuda
# exercise: rgb_to_gray
# status: fail
# reason: lab05_image_ops/rgb_to_gray [
# reason: elements differ

# %% nbgrader={"grade_id": "rgb_to_gray_cu", "solution": true}
# Right weights, no overflow, but no + 128: the shift truncates instead of rounding half up,
# and about half the pixels come out one too low (which image fails first depends on the
# seed; the 129-pixel row cannot pass by luck).
RGB_TO_GRAY_CU = r"""
__global__ void rgb_to_gray_kernel(const unsigned char *rgb, unsigned char *gray, int n_pixels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_pixels) {
        unsigned sum = 77u * rgb[3 * i] + 150u * rgb[3 * i + 1] + 29u * rgb[3 * i + 2];
        gray[i] = (unsigned char)(sum >> 8);
    }
}
"""

# %% nbgrader={"grade_id": "rgb_to_gray_cuda", "solution": true}
rgb_to_gray_kernel_cu = SourceModule(RGB_TO_GRAY_CU).get_function("rgb_to_gray_kernel")


def rgb_to_gray_cuda(rgb, gray):
    n = gray.numel()
    rgb_to_gray_kernel_cu(np.uintp(rgb.data_ptr()), np.uintp(gray.data_ptr()), np.int32(n),
                          block=(256, 1, 1), grid=((n + 255) // 256, 1))
