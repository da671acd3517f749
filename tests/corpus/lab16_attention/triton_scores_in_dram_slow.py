# impl: triton
# exercise: attention
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (attention as three passes over memory would have it, kept correct: a first kernel computes
#  the s x s scores of every head (scaled, in base 2, masked) and writes them to a float32
#  scratch tensor, 4 s^2 bytes a head (4.3 GB at s = 4096 and 64 heads); the solution's kernel
#  then reads them back instead of computing q . k^T. The same arithmetic, so right everywhere,
#  but the scores cross the memory bus twice, about 3 ms of traffic at 3 TB/s where the fused
#  kernels' whole time is of that order or less (0.3 to 0.6 TFLOP), and the first kernel
#  computes the causal heads' masked half too.)

# %% edit attention_triton
# <<<
#     o_ptr,  # o: the same, written
# ===
#     o_ptr,  # o: the same, written
#     x_ptr,  # the scores, [b h, s, s] float32 in base 2, masked: written by scores_kernel
# >>>
# <<<
#             # k^T's block, HEAD_DIM x BLOCK_N: element [dd, c] is k[c, dd]; zeros past s.
# ~~~
#                 x = tl.where(keep, x, float("-inf"))
# ===
#             rows = tl.program_id(axis=1).to(tl.int64) * s * s + offs_m[:, None] * s
#             inside = (offs_m[:, None] < s) & (offs_n[None, :] < s)
#             x = tl.load(x_ptr + rows + offs_n[None, :], mask=inside, other=0.0)
#             x = tl.where(offs_n[None, :] < s, x, float("-inf"))  # rows past s: zeros, as q's
# >>>
# <<<
# def attention_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
# ===
# @triton.jit
# def scores_kernel(q_ptr, k_ptr, x_ptr, s, qk_scale, CAUSAL: tl.constexpr,
#                   HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
#     # One BLOCK_M x BLOCK_N tile of one head's scores, q . k^T * scale * log2(e), -inf where
#     # masked, stored to x (float32, s x s per head).
#     offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
#     offs_n = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
#     offs_d = tl.arange(0, HEAD_DIM)
#     head = tl.program_id(axis=2).to(tl.int64)
#     q = tl.load(q_ptr + head * s * HEAD_DIM + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
#                 mask=offs_m[:, None] < s, other=0.0)
#     kt = tl.load(k_ptr + head * s * HEAD_DIM + offs_n[None, :] * HEAD_DIM + offs_d[:, None],
#                  mask=offs_n[None, :] < s, other=0.0)
#     x = tl.dot(q, kt) * qk_scale
#     keep = offs_n[None, :] < s
#     if CAUSAL:
#         keep = keep & (offs_n[None, :] <= offs_m[:, None])
#     x = tl.where(keep, x, float("-inf"))
#     tl.store(x_ptr + head * s * s + offs_m[:, None] * s + offs_n[None, :], x,
#              mask=(offs_m[:, None] < s) & (offs_n[None, :] < s))
#
#
# def attention_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
# >>>
# <<<
#     grid = (triton.cdiv(s, BLOCK_M), b * h)
# ~~~
#                            num_stages=3)
# ===
#     x = torch.empty((b * h, s, s), dtype=torch.float32, device=q.device)  # 4 s^2 bytes a head
#     scores_kernel[(triton.cdiv(s, 64), triton.cdiv(s, 64), b * h)](
#         q, k, x, s, 1.4426950408889634 / math.sqrt(d), CAUSAL=bool(causal), HEAD_DIM=d,
#         BLOCK_M=64, BLOCK_N=64)
#     grid = (triton.cdiv(s, BLOCK_M), b * h)
#     attention_kernel[grid](q, k, v, o, x, s, 1.0 / math.sqrt(d), CAUSAL=bool(causal),
#                            HEAD_DIM=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=warps,
#                            num_stages=3)
# >>>
