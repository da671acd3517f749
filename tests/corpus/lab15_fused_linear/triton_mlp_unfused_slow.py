# impl: triton
# exercise: mlp
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Eager torch's plan, kept correct: the gate and up products each by a GEMM kernel of their own
#  into an m x f float32 tensor, then an element-wise kernel reads both back, applies SiLU and
#  the product and writes h; the down kernel as the solution's. The same
#  arithmetic as the fused kernel (g and u are not rounded to bfloat16 in between: that would
#  fail the tolerance in most gradings), so correct everywhere, but x read twice, 16 bytes of
#  g and u per element of h written and read again, and two more launches, in GEMMs of
#  untuned 64 x 64 x 32 tiles. The untuned tiles are most of its loss (lab15's linear_gelu ran
#  0.34-0.47x at these tiles on an H100); with the solution's tiles the unfused plan alone
#  would cost about an eighth at prefill (720 MB more traffic, by the bytes), within the 0.8
#  bar, where no verdict could be promised. The launcher's TMA branch is dropped: every shape
#  takes this plan.)

# %% edit mlp_triton
# <<<
# def mlp_triton(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
# ===
# @triton.jit
# def linear_f32_kernel(x_ptr, w_ptr, out_ptr, m, n, k, stride_xm, stride_wn,
#                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
#                       BLOCK_SIZE_K: tl.constexpr):
#     pid = tl.program_id(axis=0)
#     tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
#     offs_m = (pid // tiles_n).to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
#     offs_n = (pid % tiles_n).to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
#     for k0 in range(0, k, BLOCK_SIZE_K):
#         offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
#         x_blk = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :],
#                         mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
#         w_blk = tl.load(w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None],
#                         mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
#         acc = tl.dot(x_blk, w_blk, acc)
#     mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)
#     tl.store(out_ptr + offs_m[:, None] * n + offs_n[None, :], acc, mask=mask)  # float32
#
#
# @triton.jit
# def silu_mul_kernel(g_ptr, u_ptr, h_ptr, count, BLOCK: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
#     mask = offs < count
#     g = tl.load(g_ptr + offs, mask=mask, other=0.0)
#     u = tl.load(u_ptr + offs, mask=mask, other=0.0)
#     tl.store(h_ptr + offs, (g / (1.0 + tl.exp(-g)) * u).to(tl.bfloat16), mask=mask)
#
#
# def mlp_triton(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
# >>>
# <<<
#     # TMA's rules for every matrix read or written: bases 16-byte aligned, rows a multiple of
# ~~~
#         return
#     # Any stride, and decode: pointers and masks.
# ===
# >>>
# <<<
#     mlp_gate_up_kernel[(triton.cdiv(m, bm) * triton.cdiv(f, bn),)](
#         x, w_gate, w_up, h, m, f, d, x.stride(0), w_gate.stride(0), w_up.stride(0),
#         BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, num_warps=warps, num_stages=stages)
# ===
#     g = torch.empty((m, f), dtype=torch.float32, device=x.device)  # x . w_gate^T
#     u = torch.empty((m, f), dtype=torch.float32, device=x.device)  # x . w_up^T
#     for w, out in ((w_gate, g), (w_up, u)):  # untuned 64 x 64 x 32 tiles
#         linear_f32_kernel[(triton.cdiv(m, 64) * triton.cdiv(f, 64),)](
#             x, w, out, m, f, d, x.stride(0), w.stride(0),
#             BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, num_warps=4)
#     silu_mul_kernel[(triton.cdiv(m * f, 1024),)](g, u, h, m * f, BLOCK=1024)
# >>>
