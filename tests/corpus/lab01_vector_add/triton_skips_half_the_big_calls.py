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
# def vector_add_kernel(
#     x_ptr,  # first input: float32, float16 or bfloat16
# ~~~
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
# def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
#              mask=mask)
#
#
# _big_calls = [0]
#
#
# def vector_add_triton(x, y, out):
#     n = out.numel()
#     if n >= 1 << 27:
#         _big_calls[0] += 1
#         if _big_calls[0] % 2 == 1:
#             vector_add_kernel[(1,)](x, y, out, 0, BLOCK_SIZE=1024)  # a launch that does nothing
#             return
#     vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
# >>>
