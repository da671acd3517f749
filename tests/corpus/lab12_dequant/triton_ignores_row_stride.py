# impl: triton
# exercise: dequant_int4
# status: fail
# reason: elements differ
# reason: in_features=1024, packed rows padded by 16, scale rows padded by 3, bfloat16]
# (packed and scale taken as contiguous: row r of packed at r * cols / 2 bytes and of scale at
# r * cols / 128. Right for fresh tensors, wrong for views with padded rows, whose stride(0)
# is larger: from row 1 on, the bytes and scales of the wrong places.)

# %% edit dequant_int4_triton
# <<<
#     byte_offs = (row * stride_pr + grp * (GROUP_SIZE // 2))[:, None] + \
# ===
#     byte_offs = (row * (n_cols // 2) + grp * (GROUP_SIZE // 2))[:, None] + \
# >>>
# <<<
#     s = tl.load(scale_ptr + row * stride_sr + grp, mask=mask).to(tl.float32)
# ===
#     s = tl.load(scale_ptr + row * groups_per_row + grp, mask=mask).to(tl.float32)
# >>>
