# impl: triton
# status: pass
# (honest work: two kernels per call through a scratch buffer from torch.empty, int64
#  offsets, shapes printed, an autotuned kernel with a grid lambda and a heuristic; all of it
#  is recorded on the host and replayed on the device)

# %% edit vector_add_triton
# <<<
# @triton.jit
# def vector_add_kernel(
#     x_ptr,  # first input: float32, float16 or bfloat16
# ===
# @triton.jit
# def widen_kernel(x_ptr, tmp_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     pid = tl.program_id(axis=0).to(tl.int64)  # 64-bit offsets
#     offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     tl.store(tmp_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)
#
#
# @triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 256}), triton.Config({"BLOCK_SIZE": 512})],
#                  key=["n_elements"])
# @triton.heuristics({"EVEN": lambda args: args["n_elements"] % args["BLOCK_SIZE"] == 0})
# @triton.jit
# def vector_add_kernel(
#     tmp_ptr,  # first input, widened to float32 by widen_kernel
# >>>
# <<<
#     BLOCK_SIZE: tl.constexpr,  # elements per program
# ):
# ~~~
#     y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
#     tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)
# ===
#     BLOCK_SIZE: tl.constexpr,  # elements per program
#     EVEN: tl.constexpr,  # n_elements is a multiple of BLOCK_SIZE: no mask
# ):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     if EVEN:
#         x = tl.load(tmp_ptr + offs)
#         y = tl.load(y_ptr + offs).to(tl.float32)
#         tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty))
#     else:
#         mask = offs < n_elements
#         x = tl.load(tmp_ptr + offs, mask=mask)
#         y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
#         tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)
# >>>
# <<<
#     n = out.numel()
#     BLOCK_SIZE = 1024
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     print("shapes:", x.shape, y.shape, out.shape, x.dtype, x.device, x)
#     n = out.numel()
#     tmp = torch.empty(n, dtype=torch.float32, device=x.device)
#     widen_kernel[(triton.cdiv(n, 1024),)](x, tmp, n, BLOCK_SIZE=1024)
#     grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
#     vector_add_kernel[grid](tmp, y, out, n)
# >>>
