# impl: triton
# exercise: rgb_to_gray
# status: fail
# reason: lab05_image_ops/rgb_to_gray [
# reason: elements differ
# (The formula applied to the tail's loaded bytes as they are: in Triton uint8 * 77 stays
# uint8, so every product and the sum wrap around at 256 (the right sum needs 16 bits),
# and the >> 8 of a uint8 is 0: the last n_pixels % 4 pixels come out black. The whole
# words of the other pixels are widened to 32 bits; the 129-pixel row has a tail.)

# %% edit rgb_to_gray_triton
# <<<
#         r = tl.load(rgb_ptr + 3 * tail, mask=tail_mask).to(tl.uint32)
#         g = tl.load(rgb_ptr + 3 * tail + 1, mask=tail_mask).to(tl.uint32)
#         b = tl.load(rgb_ptr + 3 * tail + 2, mask=tail_mask).to(tl.uint32)
# ===
#         r = tl.load(rgb_ptr + 3 * tail, mask=tail_mask)  # uint8, as loaded
#         g = tl.load(rgb_ptr + 3 * tail + 1, mask=tail_mask)
#         b = tl.load(rgb_ptr + 3 * tail + 2, mask=tail_mask)
# >>>
