# impl: triton
# exercise: flip_inplace
# status: fail
# reason: elements differ
# reason: [n=4099, float32]
# status-gpu: fail
# reason-gpu: elements differ
# (flip's kernel pointed at out alone: n / BLOCK_SIZE programs, each loading the mirrored tile
# of out and storing it flipped over its own tile. Program 0 overwrites the first tile with
# the last one before the last program reads the first tile, which then gets the new values
# back. Right only while one program holds the whole array (n <= BLOCK_SIZE: n = 1 and
# 1000); at n = 4099 (5 programs) 2048 of 4099 elements differ on the CPU. On a GPU the 5
# programs run at once and each reads its mirror tile before any store lands: the first miss is
# the GPU shape n = 134217731, 66397212 elements differ on an H100.)

# %% edit flip_inplace_triton
# <<<
#     half = n_elements // 2  # the pairs; the middle of an odd n stays where it is
# ~~~
#     tl.store(out_ptr + hi, tl.flip(a, 1), mask=hi_mask)
# ===
#     r = tl.arange(0, BLOCK_SIZE // PACK)[:, None]
#     c = tl.arange(0, PACK)[None, :]
#     offs = pid * BLOCK_SIZE + r * PACK + c  # this program's tile of out
#     src = n_elements - pid * BLOCK_SIZE - (r + 1) * PACK + c  # its mirrored rows
#     x = tl.load(out_ptr + src, mask=src >= 0)
#     tl.store(out_ptr + offs, tl.flip(x, 1), mask=offs < n_elements)
# >>>
# <<<
#     grid = (max(triton.cdiv(n // 2, BLOCK_SIZE), 1),)  # one program even without a pair
# ===
#     grid = (triton.cdiv(n, BLOCK_SIZE),)  # one program per tile of out
# >>>
