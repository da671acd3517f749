# impl: triton
# exercise: int8_matmul
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct everywhere, with 64 x 64 x 32 tiles and the compiler's default pipelining: each tile
# reads 128 rows of 32 bytes per 2 x 64 x 64 x 32 operations, half the reuse of a 128 x 128
# tile and a quarter of its K depth, and the tensor cores wait on memory. Measured on an H100
# (2026-12-06, benchmarks/tune_references.py lab14): 0.19-0.23x the reference.)

# %% edit int8_matmul_triton
# <<<
#     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 128, 128, 128
# ===
#     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 64, 64, 32
# >>>
# <<<
#                              BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=4, num_stages=3)
# ===
#                              BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=4)
# >>>
