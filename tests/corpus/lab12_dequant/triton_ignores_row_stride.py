# impl: triton
# exercise: dequant_int4
# status: fail
# reason: elements differ
# reason: in_features=1024, packed rows padded by 16, scale rows padded by 3, bfloat16]
# (packed and scale taken as contiguous: row r of packed at r * cols / 2 bytes and of scale at
# r * cols / 128. Right for fresh tensors, wrong for views with padded rows, whose stride(0)
# is larger: from row 1 on, the bytes and scales of the wrong places.)

# %% nbgrader={"grade_id": "dequant_int4_triton", "solution": true}
@triton.jit
def dequant_int4_kernel(packed_ptr, scale_ptr, out_ptr, n_rows, n_cols, stride_pr, stride_sr,
                        GROUP_SIZE: tl.constexpr, BLOCK_GROUPS: tl.constexpr):
    # Flat over groups, as if nothing separated the rows: group g's bytes at 64 g, scale at g.
    n_groups = n_rows * (n_cols // GROUP_SIZE)
    g = tl.program_id(axis=0).to(tl.int64) * BLOCK_GROUPS + tl.arange(0, BLOCK_GROUPS)
    mask = g < n_groups
    byte_offs = g[:, None] * (GROUP_SIZE // 2) + tl.arange(0, GROUP_SIZE // 2)[None, :]
    b = tl.load(packed_ptr + byte_offs, mask=mask[:, None]).to(tl.int32)
    s = tl.load(scale_ptr + g, mask=mask).to(tl.float32)[:, None]
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
