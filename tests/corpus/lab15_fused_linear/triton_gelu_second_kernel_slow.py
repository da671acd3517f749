# impl: triton
# exercise: linear_gelu
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (eager torch's plan, kept correct: the GEMM kernel adds the bias and writes its float32
#  result v to an m x n scratch buffer, then a second, element-wise kernel reads v back,
#  applies GELU and writes y. The same arithmetic as the fused kernel (v is not rounded to
#  bfloat16 in between: that second rounding alone fails the tolerance near v = -2), so correct
#  everywhere, but y's worth of traffic three times over (4 bytes written, 4 read, 2 written
#  per element instead of 2) and a second launch, on top of an untuned 64 x 64 x 32 GEMM.
#  The untuned GEMM is most of its time: with the solution's tiles, the second pass costs about
#  a fifth of the prefill time, near the 0.8 bar, where no verdict can be promised. The
#  launcher's TMA branch goes with its tiles: every shape takes the pointer GEMM.)

# %% edit linear_gelu_triton
# <<<
#     u = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2 / pi) (v + 0.044715 v^3)
#     out = v / (1.0 + tl.exp(-2.0 * u))
#     mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)  # y's edges
#     tl.store(y_ptr + offs_m[:, None] * n + offs_n[None, :], out.to(tl.bfloat16), mask=mask)
# ===
#     mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)  # y's edges
#     tl.store(y_ptr + offs_m[:, None] * n + offs_n[None, :], v, mask=mask)  # float32 scratch
# >>>
# <<<
# def linear_gelu_triton(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
# ===
# @triton.jit
# def gelu_kernel(v_ptr, y_ptr, count, BLOCK: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
#     mask = offs < count
#     v = tl.load(v_ptr + offs, mask=mask, other=0.0)
#     u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
#     tl.store(y_ptr + offs, (v / (1.0 + tl.exp(-2.0 * u))).to(tl.bfloat16), mask=mask)
#
#
# def linear_gelu_triton(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
# >>>
# <<<
#     # TMA's rules: bases 16-byte aligned, rows a multiple of 16 bytes apart (not w's rows
# ~~~
#                              BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=warps, num_stages=stages)
# ===
#     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 64, 64, 32
#     grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
#     v = torch.empty((m, n), dtype=torch.float32, device=y.device)  # x . w^T + b
#     linear_gelu_kernel[grid](x, w, b, v, m, n, k, x.stride(0), w.stride(0),
#                              BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
#                              BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=4)
#     gelu_kernel[(triton.cdiv(m * n, 1024),)](v, y, m * n, BLOCK=1024)
# >>>
