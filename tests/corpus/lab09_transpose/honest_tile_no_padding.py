# impl: cuda
# status: pass
# (Honest work, the "tiled" step of the notebook's staircase: the notebook's kernel with
#  float tile[32][32], no padding column. Phase 2 reads a column of the tile, 32 words in one
#  bank, so a GPU serves it in 32 steps: slower, but every element is right.)

# %% edit transpose_cu
# <<<
#     // One column of padding: column c of the tile spans all 32 banks instead of one.
#     __shared__ float tile[TILE][TILE + 1];
# ===
#     __shared__ float tile[TILE][TILE];  // no + 1: bank conflicts in phase 2
# >>>
