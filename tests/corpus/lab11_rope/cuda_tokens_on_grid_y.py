# impl: cuda
# exercise: rope_qk
# device: gpu
# status: exception
# reason: invalid configuration argument: grid dimension y
# reason: [tokens=70001, heads=4, head_dim=16, kv_heads=1, half_dim=8, bfloat16]
# (One block per token as in the notebook, but the tokens on the grid's y (grid=(1, tokens),
# token = blockIdx.y): right on every CPU shape and on the first GPU one, refused by CUDA at
# 70001 tokens; a grid's y and z stop at 65535, x at 2^31 - 1.)

# %% edit rope_qk_cu
# <<<
#     const long long token = blockIdx.x;  // 64-bit: token * stride_qt can pass 2^31
# ===
#     const long long token = blockIdx.y;  // the token on y
# >>>

# %% edit rope_qk_cuda
# <<<
#         grid=(tokens, 1),
# ===
#         grid=(1, tokens),
# >>>
