# impl: triton
# exercise: rope
# status: fail
# reason: elements differ
# reason: [tokens=3, heads=2, head_dim=8, half_dim=4, bfloat16]
# (The GPT-J pairing: x[2i] with x[2i + 1], adjacent elements, instead of NeoX's x[i] with
# x[i + half_dim], rotated by the same table entry i. A rotation all the same (norms kept,
# nothing overflows): the silent mistake of running a checkpoint with the other convention.
# It passes the first case, head_dim 2, where the two pairings are one pair.)

# %% nbgrader={"grade_id": "rope_triton", "solution": true}
@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, half_dim, stride_xt, stride_xh,
                BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    token = tl.program_id(axis=0).to(tl.int64)
    d = tl.arange(0, BLOCK_D)
    d_mask = d < half_dim
    c = tl.load(cos_ptr + token * half_dim + d, mask=d_mask)[None, :]
    s = tl.load(sin_ptr + token * half_dim + d, mask=d_mask)[None, :]
    for h0 in range(0, n_heads, BLOCK_H):
        h = h0 + tl.arange(0, BLOCK_H)
        mask = (h < n_heads)[:, None] & d_mask[None, :]
        row = x_ptr + token * stride_xt + h[:, None] * stride_xh
        even = tl.load(row + 2 * d[None, :], mask=mask).to(tl.float32)  # x[2i]
        odd = tl.load(row + 2 * d[None, :] + 1, mask=mask).to(tl.float32)  # x[2i + 1]
        out_row = out_ptr + (token * n_heads + h[:, None]) * (2 * half_dim)
        tl.store(out_row + 2 * d[None, :], (even * c - odd * s).to(out_ptr.dtype.element_ty),
                 mask=mask)
        tl.store(out_row + 2 * d[None, :] + 1, (odd * c + even * s).to(out_ptr.dtype.element_ty),
                 mask=mask)


def rope_triton(x, cos, sin, out):
    tokens, heads, head_dim = x.shape
    half_dim = head_dim // 2
    BLOCK_D = triton.next_power_of_2(half_dim)
    BLOCK_H = min(triton.next_power_of_2(heads), max(1, 4096 // BLOCK_D))
    rope_kernel[(tokens,)](x, cos, sin, out, heads, half_dim, x.stride(0), x.stride(1),
                           BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D)
