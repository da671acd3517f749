# impl: triton
# exercise: dequant_int4
# status: fail
# reason: lab12_dequant/dequant_int4 [
# reason: elements differ
# (The nibbles used as they are, 0 to 15, without subtracting the offset 8: every weight is
# 8 * scale too large, so every element is wrong.)

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
    s = tl.load(scale_ptr + row * stride_sr + grp, mask=mask).to(tl.float32)
    lo = (b & 0xF).to(tl.float32) * s[:, None]
    hi = (b >> 4).to(tl.float32) * s[:, None]
    out_offs = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
    tl.store(out_ptr + out_offs, tl.interleave(lo, hi).to(out_ptr.dtype.element_ty),
             mask=mask[:, None])


def dequant_int4_triton(packed, scale, out):
    rows, cols = out.shape
    grid = (triton.cdiv(rows * (cols // 128), 16),)
    dequant_int4_kernel[grid](packed, scale, out, rows, cols, packed.stride(0), scale.stride(0),
                              GROUP_SIZE=128, BLOCK_GROUPS=16)
