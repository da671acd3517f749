# impl: triton
# exercise: rope
# status: pass
# (Honest work in the shape of the torch formula, x * cos + rotate_half(x) * sin: whole head
# rows of head_dim columns, loaded twice, once as they are and once in partner order
# ((d + half_dim) % head_dim), with sin's sign -1 on the first half and the table column
# d % half_dim. The same pairs as the notebook's two half-width loads; the second load of
# each row comes from cache on a GPU. And the results are stored as float32 values into the
# bfloat16 output without .to(): tl.store converts to the pointer's type, one rounding.)

# %% nbgrader={"grade_id": "rope_triton", "solution": true}
@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, half_dim, stride_xt, stride_xh,
                BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    token = tl.program_id(axis=0).to(tl.int64)
    head_dim = 2 * half_dim
    col = tl.arange(0, BLOCK_D)  # BLOCK_D covers a whole row here
    col_mask = col < head_dim
    partner = (col + half_dim) % head_dim  # x2 for the first half, x1 for the second
    sign = tl.where(col < half_dim, -1.0, 1.0)  # rotate_half(x) = cat(-x2, x1)
    pair = col % half_dim
    c = tl.load(cos_ptr + token * half_dim + pair, mask=col_mask)[None, :]
    s = tl.load(sin_ptr + token * half_dim + pair, mask=col_mask)[None, :] * sign[None, :]
    for h0 in range(0, n_heads, BLOCK_H):
        h = h0 + tl.arange(0, BLOCK_H)
        mask = (h < n_heads)[:, None] & col_mask[None, :]
        row = x_ptr + token * stride_xt + h[:, None] * stride_xh
        x = tl.load(row + col[None, :], mask=mask).to(tl.float32)
        rot = tl.load(row + partner[None, :], mask=mask).to(tl.float32)
        out_row = out_ptr + (token * n_heads + h[:, None]) * head_dim
        tl.store(out_row + col[None, :], x * c + rot * s, mask=mask)


def rope_triton(x, cos, sin, out):
    tokens, heads, head_dim = x.shape
    BLOCK_D = triton.next_power_of_2(head_dim)
    BLOCK_H = min(triton.next_power_of_2(heads), max(1, 4096 // BLOCK_D))
    rope_kernel[(tokens,)](x, cos, sin, out, heads, head_dim // 2, x.stride(0), x.stride(1),
                           BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D)
