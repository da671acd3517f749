# impl: triton
# exercise: dequant_int4
# status: pass
# (Positive control: no interleave at all: the even elements stored at 2j and the odd ones at
# 2j + 1 by two strided stores. Slower on a GPU than one contiguous store, correct, never
# refused.)

# %% edit dequant_int4_triton
# <<<
#     vals = tl.interleave(lo, hi)  # [BLOCK_GROUPS, 128]: lo0 hi0 lo1 hi1 ..., in memory order
#     out_offs = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
#     tl.store(out_ptr + out_offs, vals.to(out_ptr.dtype.element_ty), mask=mask[:, None])
# ===
#     # No interleave: the even elements stored at 2j, the odd ones at 2j + 1.
#     first = g[:, None] * GROUP_SIZE + 2 * tl.arange(0, GROUP_SIZE // 2)[None, :]
#     tl.store(out_ptr + first, lo.to(out_ptr.dtype.element_ty), mask=mask[:, None])
#     tl.store(out_ptr + first + 1, hi.to(out_ptr.dtype.element_ty), mask=mask[:, None])
# >>>
