# impl: triton
# exercise: matmul_fp16
# status: pass
# (honest work: the notebook's kernel under @triton.autotune with three configurations, keyed
#  on the sizes, and a grid that reads the chosen tile size. Each new (m, n, k) is benchmarked
#  first, on a GPU; under the interpreter the grader makes every configuration tie and the
#  first runs. Autotuning must never be refused.)

# %% edit matmul_fp16_triton
# <<<
# @triton.jit
# ===
# @triton.autotune(
#     configs=[
#         triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
#                        "GROUP_SIZE_M": 8}, num_warps=8, num_stages=3),
#         triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
#                        "GROUP_SIZE_M": 8}, num_warps=4, num_stages=4),
#         triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32,
#                        "GROUP_SIZE_M": 8}, num_warps=4, num_stages=4),
#     ],
#     key=["m", "n", "k"],
# )
# @triton.jit
# >>>
# <<<
#     # The pointers of the first blocks, built once and moved a step along k each time (the
#     # form of Triton's tutorial: 4% faster on the H200 than rebuilding them every step).
#     offs_k = tl.arange(0, BLOCK_SIZE_K)
#     a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
#     b_ptrs = b_ptr + offs_k[:, None].to(tl.int64) * stride_bk + offs_n[None, :]
# ===
# >>>
# <<<
#     for k0 in range(0, k, BLOCK_SIZE_K):
# ===
#     for k0 in range(0, k, BLOCK_SIZE_K):
#         offs_k = (k0 + tl.arange(0, BLOCK_SIZE_K)).to(tl.int64)
# >>>
# <<<
#         a_blk = tl.load(a_ptrs, mask=(offs_m[:, None] < m) & (offs_k[None, :] < k - k0),
#                         other=0.0)
#         b_blk = tl.load(b_ptrs, mask=(offs_k[:, None] < k - k0) & (offs_n[None, :] < n),
#                         other=0.0)
# ===
#         a_blk = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :],
#                         mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
#         b_blk = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :],
#                         mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
# >>>
# <<<
#         a_ptrs += BLOCK_SIZE_K
#         b_ptrs += BLOCK_SIZE_K * stride_bk
# ===
# >>>
# <<<
#     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M = 128, 256, 64, 16
#     grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
#     matmul_fp16_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0),
#                              BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
#                              BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=GROUP_SIZE_M,
#                              num_warps=8, num_stages=3)
# ===
#     def grid(meta):  # the tile size is the chosen config's
#         return (triton.cdiv(m, meta["BLOCK_SIZE_M"]) * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)
#
#     matmul_fp16_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0))
# >>>
