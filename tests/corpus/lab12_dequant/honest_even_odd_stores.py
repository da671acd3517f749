# impl: triton
# exercise: dequant_int4
# status: pass
# (Positive control: no interleave at all: the even elements stored at 2j and the odd ones at
# 2j + 1 by two strided stores, 32 groups per program. Slower on a GPU than one contiguous
# store, correct, never refused.)

# %% nbgrader={"grade_id": "dequant_int4_triton", "solution": true}
@triton.jit
def dequant_int4_kernel(packed_ptr, scale_ptr, out_ptr, n_rows, n_cols, stride_pr, stride_sr,
                        GROUPS: tl.constexpr):
    per_row = n_cols // 128
    g = tl.program_id(axis=0).to(tl.int64) * GROUPS + tl.arange(0, GROUPS)
    mask = (g < n_rows * per_row)[:, None]  # the last program runs past the last group
    row = (g // per_row)[:, None]
    grp = (g % per_row)[:, None]
    j = tl.arange(0, 64)[None, :]  # byte of the group
    b = tl.load(packed_ptr + row * stride_pr + grp * 64 + j, mask=mask).to(tl.int32)
    s = tl.load(scale_ptr + row * stride_sr + grp, mask=mask).to(tl.float32)
    first = g[:, None] * 128 + 2 * j  # where element 2j of the group goes
    tl.store(out_ptr + first, (((b & 0xF) - 8) * s).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(out_ptr + first + 1, (((b >> 4) - 8) * s).to(out_ptr.dtype.element_ty), mask=mask)


def dequant_int4_triton(packed, scale, out):
    rows, cols = out.shape
    GROUPS = 32
    grid = (triton.cdiv(rows * (cols // 128), GROUPS),)
    dequant_int4_kernel[grid](packed, scale, out, rows, cols, packed.stride(0), scale.stride(0),
                              GROUPS=GROUPS)
