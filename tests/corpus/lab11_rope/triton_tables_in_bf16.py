# impl: triton
# exercise: rope
# status: fail
# reason: elements differ
# (The table rows converted to bfloat16, the model's dtype, before the arithmetic, as some
# torch code does with cos.to(x.dtype). The rest is float32 and rounds once; but the angle's
# cosine and sine keep 8 bits instead of 24, and where x1 * c and x2 * s nearly cancel, the
# error of the terms is large against their difference: about 5% of the outputs fall beyond
# one bfloat16 ulp. With these seeds the first case, one pair, already shows it.)

# %% nbgrader={"grade_id": "rope_triton", "solution": true}
@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, half_dim, stride_xt, stride_xh,
                BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    token = tl.program_id(axis=0).to(tl.int64)
    d = tl.arange(0, BLOCK_D)
    d_mask = d < half_dim
    c = tl.load(cos_ptr + token * half_dim + d, mask=d_mask).to(tl.bfloat16).to(tl.float32)
    s = tl.load(sin_ptr + token * half_dim + d, mask=d_mask).to(tl.bfloat16).to(tl.float32)
    c = c[None, :]
    s = s[None, :]
    for h0 in range(0, n_heads, BLOCK_H):
        h = h0 + tl.arange(0, BLOCK_H)
        mask = (h < n_heads)[:, None] & d_mask[None, :]
        x1_ptrs = x_ptr + token * stride_xt + h[:, None] * stride_xh + d[None, :]
        x1 = tl.load(x1_ptrs, mask=mask).to(tl.float32)
        x2 = tl.load(x1_ptrs + half_dim, mask=mask).to(tl.float32)
        out_ptrs = out_ptr + (token * n_heads + h[:, None]) * (2 * half_dim) + d[None, :]
        tl.store(out_ptrs, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
        tl.store(out_ptrs + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty), mask=mask)


def rope_triton(x, cos, sin, out):
    tokens, heads, head_dim = x.shape
    half_dim = head_dim // 2
    BLOCK_D = triton.next_power_of_2(half_dim)
    BLOCK_H = min(triton.next_power_of_2(heads), max(1, 4096 // BLOCK_D))
    rope_kernel[(tokens,)](x, cos, sin, out, heads, half_dim, x.stride(0), x.stride(1),
                           BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D)
