# impl: triton
# exercise: rgb_to_gray
# status: fail
# reason: lab05_image_ops/rgb_to_gray [
# reason: elements differ

# %% nbgrader={"grade_id": "rgb_to_gray_triton", "solution": true}
# The formula applied to the loaded bytes as they are: in Triton uint8 * 77 stays uint8, so
# every product and the sum wrap around at 256 (the right sum needs 16 bits), and the >> 8 of
# a uint8 is 0: almost every pixel comes out black.
@triton.jit
def rgb_to_gray_kernel(rgb_ptr, gray_ptr, n_pixels, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_pixels
    r = tl.load(rgb_ptr + 3 * offs, mask=mask)
    g = tl.load(rgb_ptr + 3 * offs + 1, mask=mask)
    b = tl.load(rgb_ptr + 3 * offs + 2, mask=mask)
    tl.store(gray_ptr + offs, (77 * r + 150 * g + 29 * b + 128) >> 8, mask=mask)


def rgb_to_gray_triton(rgb, gray):
    n = gray.numel()
    rgb_to_gray_kernel[(triton.cdiv(n, 1024),)](rgb, gray, n, BLOCK_SIZE=1024)
