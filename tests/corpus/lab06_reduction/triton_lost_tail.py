# impl: triton
# status: fail
# reason: [n=1]
# reason: elements differ
# (one program per whole tile: grid = n // BLOCK_SIZE rounds down, so below one whole tile
#  no program is launched: n = 1 sums nothing and out keeps its 0. Past one tile, the
#  programs' loop over the tiles still reaches the partial one)

# %% edit vector_sum_triton
# <<<
#     grid = (min(triton.cdiv(n, BLOCK_SIZE), max_programs),)
# ===
#     grid = (min(n // BLOCK_SIZE, max_programs),)  # should be triton.cdiv(n, BLOCK_SIZE)
# >>>
