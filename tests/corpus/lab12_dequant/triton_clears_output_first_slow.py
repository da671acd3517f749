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

# %% nbgrader={"grade_id": "dequant_int8_triton", "solution": true}
@triton.jit
def zero_kernel(out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offs, tl.zeros([BLOCK_SIZE], dtype=out_ptr.dtype.element_ty),
             mask=offs < n_elements)


@triton.jit
def dequant_int8_kernel(w_ptr, scale_ptr, out_ptr, n_cols, stride_wr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    w = tl.load(w_ptr + row * stride_wr + cols, mask=mask).to(tl.float32)
    s = tl.load(scale_ptr + row).to(tl.float32)
    tl.store(out_ptr + row * n_cols + cols, (w * s).to(out_ptr.dtype.element_ty), mask=mask)


def dequant_int8_triton(w, scale, out):
    rows, cols = out.shape
    zero_kernel[(triton.cdiv(out.numel(), 4096),)](out, out.numel(), BLOCK_SIZE=4096,
                                                   num_warps=8)
    BLOCK_SIZE = max(16, min(triton.next_power_of_2(cols), 4096))
    grid = (rows, triton.cdiv(cols, BLOCK_SIZE))
    dequant_int8_kernel[grid](w, scale, out, cols, w.stride(0), BLOCK_SIZE=BLOCK_SIZE,
                              num_warps=8 if BLOCK_SIZE >= 4096 else 4)
