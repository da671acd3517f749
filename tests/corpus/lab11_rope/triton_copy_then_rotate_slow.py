# impl: triton
# exercise: rope
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct, in two passes: a copy kernel moves x into out, then the notebook's RoPE kernel
# runs in place (the kind an inference engine runs inside its QKV buffer), launched with out
# as its x and out's strides, and rotates out where it lies. Every element is read and
# written twice: twice the fused kernel's traffic, half its speed at the same bandwidth; the
# bar is 0.8x the reference, nothing at 0.6x.)

# %% edit rope_triton
# <<<
# @triton.jit
# def rope_kernel(
# ===
# @triton.jit
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
# def rope_kernel(
# >>>
# <<<
#     rope_kernel[(tokens,)](x, cos, sin, out, heads, half_dim, x.stride(0), x.stride(1),
#                            BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D, num_warps=num_warps)
# ===
#     copy_kernel[(tokens,)](x, out, heads, head_dim, x.stride(0), x.stride(1),
#                            BLOCK_H=triton.next_power_of_2(heads),
#                            BLOCK_D=triton.next_power_of_2(head_dim))
#     # In place: out as x, contiguous (stride_xt = heads * head_dim, stride_xh = head_dim).
#     rope_kernel[(tokens,)](out, cos, sin, out, heads, half_dim, heads * head_dim, head_dim,
#                            BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D, num_warps=num_warps)
# >>>
