# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: differs from torch's
# (Honest on every shape but the perf size, where it skips the work in every other call from
# the first on. The host is asked once per shape: its first answer, the skipping one, is the
# stream every timed round replays, and the recheck of the first warm-up round's output sees
# it. Skipping in some rounds only cannot be expressed: the stream is fixed per shape.)

# %% edit vector_add_triton
# <<<
# def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
# ===
# _big_calls = [0]
#
#
# def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
# >>>
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     if n >= 1 << 27:
#         _big_calls[0] += 1
#         if _big_calls[0] % 2 == 1:
#             vector_add_kernel[(1,)](x, y, out, 0, BLOCK_SIZE=1024)  # a launch that does nothing
#             return
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# >>>
