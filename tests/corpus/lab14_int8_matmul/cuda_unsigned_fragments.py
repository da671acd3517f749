# impl: cuda
# status: fail
# reason: elements differ
# (uint8 taken for int8: the operand fragments are unsigned char, so every negative byte is
#  read as itself + 256 (-1 as 255). Half the values of a and b are negative: wrong almost
#  everywhere (all 256 elements of 16^3).)

# %% edit int8_matmul_cu
# <<<
#         wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa[2][FM];
#         wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb[2][FN];
# ===
#         wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa[2][FM];
#         wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> fb[2][FN];
# >>>
# <<<
#                 wmma::load_matrix_sync(fa[set][i], &as[buf][s][wr + 16 * i][0], 16);
# ===
#                 wmma::load_matrix_sync(
#                     fa[set][i],
#                     reinterpret_cast<const unsigned char *>(&as[buf][s][wr + 16 * i][0]), 16);
# >>>
# <<<
#                 wmma::load_matrix_sync(fb[set][j], &bs[buf][s][wc + 16 * j][0], 16);
# ===
#                 wmma::load_matrix_sync(
#                     fb[set][j],
#                     reinterpret_cast<const unsigned char *>(&bs[buf][s][wc + 16 * j][0]), 16);
# >>>
