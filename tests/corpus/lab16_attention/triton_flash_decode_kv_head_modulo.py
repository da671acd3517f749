# impl: triton
# exercise: flash_decode
# status: fail
# reason: [b=1, hq=8, d=128, hkv=2, s=200
# reason: elements differ
# (Query head h read against KV head h % hkv instead of h // group: the program of KV head j
#  takes the query heads j, j + hkv, j + 2 hkv, ... of its sequence. The same heads where
#  group = 1 (plain multi-head attention) or hkv = 1 (one KV head for all); wrong on the first
#  public shape, 4 query heads on each of 2 KV heads, where half of the heads attend with
#  another head's keys and values: o off by up to 0.4 there, four times its standard
#  deviation.)

# %% edit flash_decode_triton
# <<<
#     heads = seq * n_kv * GROUP + kv_j * GROUP + offs_g
# ===
#     heads = seq * n_kv * GROUP + kv_j + offs_g * n_kv  # query head h reads KV head h % hkv
# >>>
