# impl: triton
# exercise: dequant_int8
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: the output is cleared by a kernel of its own before the dequantising one
#  writes every element of it, a habit from kernels that accumulate. The bfloat16 output is
#  two thirds of the traffic: writing it twice moves 5/3 the minimum bytes. The profile's
#  extra-writes control.)

# %% edit dequant_int8_triton
# <<<
# def dequant_int8_kernel(
#     w_ptr,  # [rows, cols] int8, rows stride_wr apart
# ~~~
#     s = tl.load(scale_ptr + row).to(tl.float32)  # a scalar: the same scale for the whole row
#     # Exact in float32; the conversion at the store is the one rounding.
# ===
# def zero_kernel(out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     tl.store(out_ptr + offs, tl.zeros([BLOCK_SIZE], dtype=out_ptr.dtype.element_ty),
#              mask=offs < n_elements)
#
#
# @triton.jit
# def dequant_int8_kernel(w_ptr, scale_ptr, out_ptr, n_cols, stride_wr, BLOCK_SIZE: tl.constexpr):
#     row = tl.program_id(axis=0).to(tl.int64)
#     cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = cols < n_cols
#     w = tl.load(w_ptr + row * stride_wr + cols, mask=mask).to(tl.float32)
#     s = tl.load(scale_ptr + row).to(tl.float32)
# >>>
# <<<
# def dequant_int8_triton(w: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
#     """out[r, c] = w[r, c] * scale[r]: w int8 [rows, cols], scale and out bfloat16."""
# ~~~
#         "rows must be contiguous columns"
#     BLOCK_SIZE = max(16, min(triton.next_power_of_2(cols), 4096))  # not far above cols
# ===
# def dequant_int8_triton(w, scale, out):
#     rows, cols = out.shape
#     zero_kernel[(triton.cdiv(out.numel(), 4096),)](out, out.numel(), BLOCK_SIZE=4096,
#                                                    num_warps=8)
#     BLOCK_SIZE = max(16, min(triton.next_power_of_2(cols), 4096))
# >>>
