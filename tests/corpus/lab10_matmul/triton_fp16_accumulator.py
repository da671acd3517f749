# impl: triton
# exercise: matmul_fp16
# status: fail
# reason: [m=16, k=1024, n=32, float16]
# reason: elements differ
# reason-gpu: elements differ
# (on the H200 the tensor cores' float16 accumulation is off already at k = 32: the GPU's
#  verdict names no shape)
# (the accumulator in float16: acc = tl.zeros(..., tl.float16) and tl.dot(..., out_dtype=
#  tl.float16). Each K tile's sum is rounded to 11 significant bits and added to a float16
#  running total, rounded again: the partial sums (|sum| ~ sqrt(k)) lose ~2^-11 of their size
#  at every step. Within the tolerance while k is small; at k = 1024 about 1 element in 5 is
#  off by more than 1e-3 relative.)

# %% edit matmul_fp16_triton
# <<<
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)  # float32 accumulation
#     # The pointers of the first blocks, built once and moved a step along k each time (the
#     # form of Triton's tutorial: 4% faster on the H200 than rebuilding them every step).
#     offs_k = tl.arange(0, BLOCK_SIZE_K)
#     a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
#     b_ptrs = b_ptr + offs_k[:, None].to(tl.int64) * stride_bk + offs_n[None, :]
# ===
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)
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
# ~~~
#         a_ptrs += BLOCK_SIZE_K
#         b_ptrs += BLOCK_SIZE_K * stride_bk
# ===
#         a_blk = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :],
#                         mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
#         b_blk = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :],
#                         mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
#         acc = tl.dot(a_blk, b_blk, acc, out_dtype=tl.float16)
# >>>
# <<<
#     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M = 128, 256, 64, 16
# ===
#     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M = 128, 128, 64, 8
# >>>
