# impl: triton
# exercise: rope_qk
# status: fail
# reason: out-of-bounds write
# reason: [tokens=3, heads=4, head_dim=8, kv_heads=2, half_dim=4, bfloat16] k_out
# (k rotated with q's head count, a copy-paste of the q call: token t's k heads are written at
# (t * n_heads + h) * head_dim for h < n_heads, past the end of k_out for the last token, and
# read past the end of k. The first case has as many kv heads as q heads: it passes.)

# %% nbgrader={"grade_id": "rope_qk_triton", "solution": true}
@triton.jit
def rotate_heads(x_ptr, out_ptr, token, n_heads, half_dim, stride_xt, stride_xh, c, s,
                 BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    d = tl.arange(0, BLOCK_D)
    for h0 in range(0, n_heads, BLOCK_H):
        h = h0 + tl.arange(0, BLOCK_H)
        mask = (h < n_heads)[:, None] & (d < half_dim)[None, :]
        x1_ptrs = x_ptr + token * stride_xt + h[:, None] * stride_xh + d[None, :]
        x1 = tl.load(x1_ptrs, mask=mask).to(tl.float32)
        x2 = tl.load(x1_ptrs + half_dim, mask=mask).to(tl.float32)
        out_ptrs = out_ptr + (token * n_heads + h[:, None]) * (2 * half_dim) + d[None, :]
        tl.store(out_ptrs, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
        tl.store(out_ptrs + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rope_qk_kernel(q_ptr, k_ptr, cos_ptr, sin_ptr, q_out_ptr, k_out_ptr, n_heads, n_kv_heads,
                   half_dim, stride_qt, stride_qh, stride_kt, stride_kh,
                   BLOCK_HQ: tl.constexpr, BLOCK_HK: tl.constexpr, BLOCK_D: tl.constexpr):
    token = tl.program_id(axis=0).to(tl.int64)
    d = tl.arange(0, BLOCK_D)
    c = tl.load(cos_ptr + token * half_dim + d, mask=d < half_dim)[None, :]
    s = tl.load(sin_ptr + token * half_dim + d, mask=d < half_dim)[None, :]
    rotate_heads(q_ptr, q_out_ptr, token, n_heads, half_dim, stride_qt, stride_qh, c, s,
                 BLOCK_HQ, BLOCK_D)
    rotate_heads(k_ptr, k_out_ptr, token, n_heads, half_dim, stride_kt, stride_kh, c, s,
                 BLOCK_HQ, BLOCK_D)  # n_heads: q's head count


def rope_qk_triton(q, k, cos, sin, q_out, k_out):
    tokens, heads, head_dim = q.shape
    kv_heads = k.shape[1]
    half_dim = head_dim // 2
    BLOCK_D = triton.next_power_of_2(half_dim)
    rope_qk_kernel[(tokens,)](q, k, cos, sin, q_out, k_out, heads, kv_heads, half_dim,
                              q.stride(0), q.stride(1), k.stride(0), k.stride(1),
                              BLOCK_HQ=triton.next_power_of_2(heads),
                              BLOCK_HK=triton.next_power_of_2(kv_heads), BLOCK_D=BLOCK_D)
