# impl: triton
# exercise: dequant_int4
# status: pass
# (Positive control: whole groups as in the handout, but the two nibbles of each byte joined
# with tl.join into a [BLOCK_GROUPS, 64, 2] tile and stored through 3-D offsets (2j, 2j + 1)
# instead of tl.interleave; a dtype guard that raises NotImplementedError on other dtypes.
# Honest work: never refused.)

# %% edit dequant_int4_triton
# <<<
#     vals = tl.interleave(lo, hi)  # [BLOCK_GROUPS, 128]: lo0 hi0 lo1 hi1 ..., in memory order
#     out_offs = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
#     tl.store(out_ptr + out_offs, vals.to(out_ptr.dtype.element_ty), mask=mask[:, None])
# ===
#     pair = tl.join(lo, hi)  # [BLOCK_GROUPS, 64, 2]: byte j's two nibbles side by side
#     offs = (g[:, None, None] * GROUP_SIZE + 2 * tl.arange(0, GROUP_SIZE // 2)[None, :, None]
#             + tl.arange(0, 2)[None, None, :])  # (2j, 2j + 1)
#     tl.store(out_ptr + offs, pair.to(out_ptr.dtype.element_ty), mask=mask[:, None, None])
# >>>
# <<<
#     GROUP_SIZE = 128
#     rows, cols = out.shape
# ===
#     if out.dtype != torch.bfloat16:
#         raise NotImplementedError(f"bfloat16 output only, not {out.dtype}")
#     GROUP_SIZE = 128
#     rows, cols = out.shape
# >>>
