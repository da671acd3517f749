# impl: triton
# status: pass
# (Honest work: the tile turned around with tl.trans and stored with offsets and a mask built
#  the other way round (offs_n down, offs_m across), on tiles that are not square. The
#  notebook stores the tile as loaded, with out's strides; this is the same transpose.)

# %% edit transpose_triton
# <<<
#     # x[i, j] goes to out[j, i], at j * n_rows + i: the same tile with out's strides. The
#     # compiler stages it through shared memory so that both accesses are coalesced.
#     tl.store(out_ptr + offs_n[None, :] * n_rows + offs_m[:, None], x, mask=mask)
# ===
#     # BLOCK_SIZE_N x BLOCK_SIZE_M: row b of the turned tile is column b of x, a row of out.
#     mask_t = (offs_n[:, None] < n_cols) & (offs_m[None, :] < n_rows)
#     tl.store(out_ptr + offs_n[:, None] * n_rows + offs_m[None, :], tl.trans(x), mask=mask_t)
# >>>
# <<<
#     BLOCK_SIZE_M, BLOCK_SIZE_N = 64, 64  # 4096 floats: 32 per thread of the 4 default warps
# ===
#     BLOCK_SIZE_M, BLOCK_SIZE_N = 32, 64  # not square
# >>>
