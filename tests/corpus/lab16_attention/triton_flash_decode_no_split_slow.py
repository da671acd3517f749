# impl: triton
# exercise: flash_decode
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (No split: one program per (KV head, sequence) reads all s keys of its head, the combine
#  passing one partial through. Right everywhere, but b hkv programs: 8 at the first perf shape
#  (one sequence, 8 KV heads) for 132 SMs, 64 at the others, where the solution launches 256
#  and 320; the cache is read by 8 (or 64) SMs, each drawing a fraction of the memory's
#  bandwidth.)

# %% edit flash_decode_triton
# <<<
#     splits = min(triton.cdiv(2 * sms, b * hkv), triton.cdiv(s, BLOCK_N), 64)
# ===
#     splits = 1  # one program per KV head: b hkv programs
# >>>
