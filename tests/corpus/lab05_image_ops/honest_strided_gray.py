# impl: triton
# exercise: rgb_to_gray
# status: pass
# (Positive control: the handout's first version, hints 1 and 2, one pixel per lane and three
# strided byte loads, widened before the formula. Slower than whole words, never refused.)

# %% nbgrader={"grade_id": "rgb_to_gray_triton", "solution": true}
@triton.jit
def gray_of(r, g, b):
    return (77 * r + 150 * g + 29 * b + 128) >> 8


@triton.jit
def rgb_to_gray_kernel(rgb_ptr, gray_ptr, n_pixels, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_pixels
    r = tl.load(rgb_ptr + 3 * offs, mask=mask).to(tl.uint32)
    g = tl.load(rgb_ptr + 3 * offs + 1, mask=mask).to(tl.uint32)
    b = tl.load(rgb_ptr + 3 * offs + 2, mask=mask).to(tl.uint32)
    tl.store(gray_ptr + offs, gray_of(r, g, b), mask=mask)


def rgb_to_gray_triton(rgb, gray):
    n = gray.numel()
    rgb_to_gray_kernel[(triton.cdiv(n, 1024),)](rgb, gray, n, BLOCK_SIZE=1024)
