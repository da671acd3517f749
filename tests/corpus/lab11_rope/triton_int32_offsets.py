# impl: triton
# exercise: rope
# device: gpu
# status: exception
# reason: [tokens=16, heads=2, head_dim=128, half_dim=64, x rows padded by 71600000, bfloat16]
# reason-any: illegal memory access | illegal address
# (Right on every CPU shape; only offsets past 2^31 show it, so it runs on a GPU only.
# tl.program_id is 32-bit, and so is token * stride_xt: in the view whose tokens are
# 143200256 elements apart, token 15's offset 2148003840 wraps to a negative one, 4 GiB
# before x, where nothing is mapped. (The CPU interpreter would segfault there, which is why
# this is not a CPU control.))

# %% nbgrader={"grade_id": "rope_triton", "solution": true}
@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, half_dim, stride_xt, stride_xh,
                BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    token = tl.program_id(axis=0)  # 32-bit
    d = tl.arange(0, BLOCK_D)
    d_mask = d < half_dim
    c = tl.load(cos_ptr + token * half_dim + d, mask=d_mask)[None, :]
    s = tl.load(sin_ptr + token * half_dim + d, mask=d_mask)[None, :]
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
