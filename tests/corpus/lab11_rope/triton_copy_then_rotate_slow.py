# impl: triton
# exercise: rope
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct, in two passes: a copy kernel moves x into out, then an in-place RoPE kernel (the
# kind an inference engine runs inside its QKV buffer) rotates out where it lies. Every
# element is read and written twice: twice the fused kernel's traffic, half its speed at the
# same bandwidth; the bar is 0.8x the reference, nothing at 0.6x.)

# %% edit rope_triton
# <<<
# def rope_kernel(
#     x_ptr,  # [tokens, heads, 2 * half_dim] bfloat16, head rows contiguous
# ~~~
#     rope_kernel[(tokens,)](x, cos, sin, out, heads, half_dim, x.stride(0), x.stride(1),
#                            BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D, num_warps=num_warps)
# ===
# def copy_kernel(x_ptr, out_ptr, n_heads, head_dim, stride_xt, stride_xh,
#                 BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
#     token = tl.program_id(axis=0).to(tl.int64)
#     h = tl.arange(0, BLOCK_H)[:, None]
#     col = tl.arange(0, BLOCK_D)[None, :]
#     mask = (h < n_heads) & (col < head_dim)
#     x = tl.load(x_ptr + token * stride_xt + h * stride_xh + col, mask=mask)
#     tl.store(out_ptr + (token * n_heads + h) * head_dim + col, x, mask=mask)
#
#
# @triton.jit
# def rope_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n_heads, half_dim, stride_xt, stride_xh,
#                 BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
#     # In place: x_ptr is out, contiguous (stride_xt = n_heads * head_dim, stride_xh = head_dim).
#     token = tl.program_id(axis=0).to(tl.int64)
#     d = tl.arange(0, BLOCK_D)
#     h = tl.arange(0, BLOCK_H)
#     mask = (h < n_heads)[:, None] & (d < half_dim)[None, :]
#     c = tl.load(cos_ptr + token * half_dim + d, mask=d < half_dim)[None, :]
#     s = tl.load(sin_ptr + token * half_dim + d, mask=d < half_dim)[None, :]
#     ptrs = x_ptr + token * stride_xt + h[:, None] * stride_xh + d[None, :]
#     x1 = tl.load(ptrs, mask=mask).to(tl.float32)
#     x2 = tl.load(ptrs + half_dim, mask=mask).to(tl.float32)
#     tl.store(ptrs, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
#     tl.store(ptrs + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty), mask=mask)
#
#
# def rope_triton(x, cos, sin, out):
#     tokens, heads, head_dim = x.shape
#     half_dim = head_dim // 2
#     BLOCK_H = triton.next_power_of_2(heads)
#     copy_kernel[(tokens,)](x, out, heads, head_dim, x.stride(0), x.stride(1), BLOCK_H=BLOCK_H,
#                            BLOCK_D=triton.next_power_of_2(head_dim))
#     rope_kernel[(tokens,)](out, cos, sin, out, heads, half_dim, heads * head_dim, head_dim,
#                            BLOCK_H=BLOCK_H, BLOCK_D=triton.next_power_of_2(half_dim))
# >>>
