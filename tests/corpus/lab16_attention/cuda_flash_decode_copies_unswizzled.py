# impl: cuda
# exercise: flash_decode
# status: fail
# reason: elements differ
# (The whole tiles' copies land at row r, column c of a plain BN x D tile, r D + c, not at the
#  swizzled place load_b reads, swizzled<D>(r, c): every 16-byte chunk but those of rows that
#  are multiples of 8 sits where load_b expects another, and the scores and p . v take the
#  wrong elements of k and v. Only a tile that passes the split's end, copied piece by piece
#  through swizzled<D>, lands right. 997 of 1024 elements differ on the check's first shape.)

# %% edit flash_decode_cu
# <<<
#             const int to = swizzled<D>(r + i * ROWS, c);
# ===
#             const int to = (r + i * ROWS) * D + c;  // row r + i ROWS, column c, unswizzled
# >>>
