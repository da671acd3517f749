# impl: triton
# exercise: dequant_int4
# status: fail
# reason: elements differ
# reason: [out_features=3, in_bytes=128, groups=2, in_features=256, bfloat16]
# (The scale's group counted in packed bytes: byte j of a row takes scale j // 128, so a
# scale covers 256 weights instead of 128. Right while a row has a single group (the first
# shape, 128 columns); from the second group of a row on, the wrong scale: the 256-column
# shape fails.)

# %% nbgrader={"grade_id": "dequant_int4_triton", "solution": true}
@triton.jit
def dequant_int4_kernel(packed_ptr, scale_ptr, out_ptr, n_rows, n_cols, stride_pr, stride_sr,
                        GROUP_SIZE: tl.constexpr, BLOCK_GROUPS: tl.constexpr):
    groups_per_row = n_cols // GROUP_SIZE
    g = tl.program_id(axis=0).to(tl.int64) * BLOCK_GROUPS + tl.arange(0, BLOCK_GROUPS)
    mask = g < n_rows * groups_per_row
    row = g // groups_per_row
    grp = g % groups_per_row
    byte_offs = (row * stride_pr + grp * (GROUP_SIZE // 2))[:, None] + \
        tl.arange(0, GROUP_SIZE // 2)[None, :]
    b = tl.load(packed_ptr + byte_offs, mask=mask[:, None]).to(tl.int32)
    # The byte's position in its row, and a group per 128 of them (should be 64: 128 weights).
    byte_in_row = grp[:, None] * (GROUP_SIZE // 2) + tl.arange(0, GROUP_SIZE // 2)[None, :]
    s = tl.load(scale_ptr + row[:, None] * stride_sr + byte_in_row // 128,
                mask=mask[:, None]).to(tl.float32)
    lo = ((b & 0xF) - 8).to(tl.float32) * s
    hi = ((b >> 4) - 8).to(tl.float32) * s
    out_offs = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
    tl.store(out_ptr + out_offs, tl.interleave(lo, hi).to(out_ptr.dtype.element_ty),
             mask=mask[:, None])


def dequant_int4_triton(packed, scale, out):
    rows, cols = out.shape
    grid = (triton.cdiv(rows * (cols // 128), 16),)
    dequant_int4_kernel[grid](packed, scale, out, rows, cols, packed.stride(0), scale.stride(0),
                              GROUP_SIZE=128, BLOCK_GROUPS=16)
