# impl: cuda
# exercise: mlp
# status: fail
# reason: elements differ
# reason: [m=16, d=16, f=16, bfloat16]
# (The pair's order swapped in the epilogue: silu(u) * g from fragments 2 p + 1 and 2 p, as if
#  the up rows came first in each 32 rows of the interleaved tile. SiLU is not odd, so silu(u) g
#  and silu(g) u differ by about a quarter of h where g and u are of order one: wrong on most
#  elements of y from the first shape on.)

# %% edit mlp_cu
# <<<
#                     acc[i][j].x[e] = silu_mul(acc[i][j].x[e], acc[i][j + 1].x[e]);
# ===
#                     acc[i][j].x[e] = silu_mul(acc[i][j + 1].x[e], acc[i][j].x[e]);
# >>>
