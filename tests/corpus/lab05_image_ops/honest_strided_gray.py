# impl: triton
# exercise: rgb_to_gray
# status: pass
# (Positive control: the handout's first version, hints 1 and 2, one pixel per lane and three
# strided byte loads, widened before the formula. Slower than whole words, never refused.)

# %% edit rgb_to_gray_triton
# <<<
#     pid = tl.program_id(axis=0).to(tl.int64)  # 3 * pixel index can pass 2^31 on big images
#     # Each lane converts a group of 4 pixels: 12 bytes in = 3 words, 4 bytes out = 1 word.
# ~~~
#         b = tl.load(rgb_ptr + 3 * tail + 2, mask=tail_mask).to(tl.uint32)
#         tl.store(gray_ptr + tail, gray_of(r, g, b), mask=tail_mask)
# ===
#     pid = tl.program_id(axis=0).to(tl.int64)  # 3 * pixel index can pass 2^31 on big images
#     # Each lane converts one pixel: three strided byte loads, widened before the formula.
#     offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_pixels
#     r = tl.load(rgb_ptr + 3 * offs, mask=mask).to(tl.uint32)
#     g = tl.load(rgb_ptr + 3 * offs + 1, mask=mask).to(tl.uint32)
#     b = tl.load(rgb_ptr + 3 * offs + 2, mask=mask).to(tl.uint32)
#     tl.store(gray_ptr + offs, gray_of(r, g, b), mask=mask)
# >>>
# <<<
#     BLOCK_SIZE = 1024  # groups of 4 pixels per program: 12 KiB in, 4 KiB out
#     # One program per BLOCK_SIZE groups, and at least one for the tail of a tiny image.
#     grid = (max(triton.cdiv(n // 4, BLOCK_SIZE), 1),)
# ===
#     BLOCK_SIZE = 1024  # pixels per program
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
# >>>
