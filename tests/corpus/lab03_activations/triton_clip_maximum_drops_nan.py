# impl: triton
# exercise: clip
# status: fail
# reason: [n=997, x holds nan, inf, -inf, float32]
# reason: 1 of 997 elements differ

# %% nbgrader={"grade_id": "clip_triton", "solution": true}
# clip as tl.minimum(tl.maximum(x, lo), hi): by default (propagate_nan=NONE) tl.maximum returns
# the other operand for a NaN, under the interpreter (numpy's fmax) as on a GPU (max.f32), so
# clip(nan) comes out lo; torch.clamp(nan, lo, hi) is nan.
@triton.jit
def clip_kernel(x_ptr, out_ptr, n_elements, lo, hi, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.minimum(tl.maximum(x, lo), hi)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def clip_triton(x, out, lo, hi):
    n = out.numel()
    clip_kernel[(triton.cdiv(n, 1024),)](x, out, n, lo, hi, BLOCK_SIZE=1024)
