# impl: triton
# exercise: dequant_int4
# status: pass
# (honest work: each int32 nibble converted straight to bfloat16, which is exact; without a
#  GPU the Triton interpreter must convert the value, not reinterpret its bits)

# %% nbgrader={"grade_id": "dequant_int4_triton", "solution": true}
@triton.jit
def dequant_int4_kernel(
    packed_ptr,  # [rows, cols / 2] uint8, rows stride_pr bytes apart
    scale_ptr,  # [rows, cols / 128] bfloat16, rows stride_sr apart
    out_ptr,  # [rows, cols] bfloat16, contiguous
    n_rows,  # rows
    n_cols,  # cols, a multiple of GROUP_SIZE
    stride_pr,  # bytes between the starts of two rows of packed
    stride_sr,  # elements between the starts of two rows of scale
    GROUP_SIZE: tl.constexpr,  # weights per scale: 128 (64 packed bytes)
    BLOCK_GROUPS: tl.constexpr,  # groups per program
):
    groups_per_row = n_cols // GROUP_SIZE
    # This program's groups, numbered across the whole matrix; 64-bit: offsets pass 2^31.
    g = tl.program_id(axis=0).to(tl.int64) * BLOCK_GROUPS + tl.arange(0, BLOCK_GROUPS)
    mask = g < n_rows * groups_per_row  # the last program runs past the last group
    row = g // groups_per_row
    grp = g % groups_per_row
    # [BLOCK_GROUPS, 64]: the 64 bytes of each group, contiguous within a row of packed.
    byte_offs = (row * stride_pr + grp * (GROUP_SIZE // 2))[:, None] + \
        tl.arange(0, GROUP_SIZE // 2)[None, :]
    b = tl.load(packed_ptr + byte_offs, mask=mask[:, None]).to(tl.int32)  # widen: no wrap
    s = tl.load(scale_ptr + row * stride_sr + grp, mask=mask).to(tl.float32)
    # Each nibble converted straight to bfloat16 (exact: -8..7), widened for the product.
    lo = ((b & 0xF) - 8).to(tl.bfloat16).to(tl.float32) * s[:, None]
    hi = ((b >> 4) - 8).to(tl.bfloat16).to(tl.float32) * s[:, None]
    vals = tl.interleave(lo, hi)  # [BLOCK_GROUPS, 128]: lo0 hi0 lo1 hi1 ..., in memory order
    out_offs = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
    tl.store(out_ptr + out_offs, vals.to(out_ptr.dtype.element_ty), mask=mask[:, None])


def dequant_int4_triton(packed: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    """out[r, c] = (nibble c of packed row r - 8) * scale[r, c // 128], bfloat16 [rows, cols]."""
    GROUP_SIZE = 128
    rows, cols = out.shape
    assert cols % GROUP_SIZE == 0, \
        f"cols = {cols} is not a multiple of the group size {GROUP_SIZE}"
    assert packed.shape == (rows, cols // 2) and scale.shape == (rows, cols // GROUP_SIZE), \
        f"packed {tuple(packed.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert packed.stride(1) == 1 and scale.stride(1) == 1 and out.is_contiguous(), \
        "rows must be contiguous columns"
    BLOCK_GROUPS = 16  # 2048 weights per program: 1 KiB of packed bytes in, 4 KiB out
    grid = (triton.cdiv(rows * (cols // GROUP_SIZE), BLOCK_GROUPS),)
    dequant_int4_kernel[grid](packed, scale, out, rows, cols, packed.stride(0), scale.stride(0),
                              GROUP_SIZE=GROUP_SIZE, BLOCK_GROUPS=BLOCK_GROUPS, num_warps=4)
