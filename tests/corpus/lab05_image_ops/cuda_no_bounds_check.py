# impl: cuda
# exercise: invert
# status: fail
# reason: out-of-bounds write
# reason: [h=1, w=1, c=4, uint8]
# (No bounds check on the tail pixel's store: every thread past the n_pixels % 4 leftovers
# writes past the end, and the block of the 1-pixel image writes 255 pixels past it.)

# %% edit invert_cu
# <<<
#     if (tail < n_pixels) {  // only the first n_pixels % 4 threads have a leftover pixel
#         reinterpret_cast<unsigned *>(out)[tail] =
#             reinterpret_cast<const unsigned *>(rgba)[tail] ^ FLIP;
#     }
# ===
#     reinterpret_cast<unsigned *>(out)[tail] =  // the read is guarded, the store is not
#         tail < n_pixels ? reinterpret_cast<const unsigned *>(rgba)[tail] ^ FLIP : 0u;
# >>>
