# impl: triton
# exercise: layernorm
# status: fail
# reason: [n_rows=3, n_cols=5000, float32]
# reason: still hold the fill value
# (The block is capped at 4096 columns, as a 1-D kernel's BLOCK_SIZE usually is, but the
# kernel still assumes that one block holds the whole row: a row of 5000 gets statistics of
# its first 4096 values, and its last 904 outputs are never written. Right on every row of up
# to 4096 columns.)

# %% edit layernorm_triton
# <<<
#     BLOCK_SIZE = min(max(CHUNK, triton.next_power_of_2(triton.cdiv(n_cols, MAX_CHUNKS))),
#                      triton.next_power_of_2(n_cols))
# ===
#     BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 4096)  # "large enough"
# >>>
# <<<
#                                 BLOCK_SIZE=BLOCK_SIZE, N_CHUNKS=triton.cdiv(n_cols, BLOCK_SIZE),
# ===
#                                 BLOCK_SIZE=BLOCK_SIZE, N_CHUNKS=1,  # the row in one block
# >>>
