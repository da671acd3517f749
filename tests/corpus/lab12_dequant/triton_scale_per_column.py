# impl: triton
# exercise: dequant_int8
# status: fail
# reason: elements differ
# reason: [out_features=3, in_features=7, bfloat16]
# (One scale per column instead of per row: scale[c] instead of scale[r]. Right for the
# single weight of the first shape; wrong on the next, where row 1 takes scale[0] for its
# first column (and columns past the last row read beyond the scales).)

# %% nbgrader={"grade_id": "dequant_int8_triton", "solution": true}
@triton.jit
def dequant_int8_kernel(w_ptr, scale_ptr, out_ptr, n_cols, stride_wr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    w = tl.load(w_ptr + row * stride_wr + cols, mask=mask).to(tl.float32)
    s = tl.load(scale_ptr + cols, mask=mask).to(tl.float32)  # a scale per output column
    tl.store(out_ptr + row * n_cols + cols, (w * s).to(out_ptr.dtype.element_ty), mask=mask)


def dequant_int8_triton(w, scale, out):
    rows, cols = out.shape
    BLOCK_SIZE = max(16, min(triton.next_power_of_2(cols), 4096))
    dequant_int8_kernel[(rows, triton.cdiv(cols, BLOCK_SIZE))](w, scale, out, cols, w.stride(0),
                                                               BLOCK_SIZE=BLOCK_SIZE)
