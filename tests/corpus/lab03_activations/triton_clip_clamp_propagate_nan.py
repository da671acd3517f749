# impl: triton
# exercise: clip
# status: pass

# %% nbgrader={"grade_id": "clip_triton", "solution": true}
# (A positive control for the handout's advice: tl.clamp with propagate_nan=ALL keeps NaN,
# under the interpreter as on a GPU, so this clip is right.)
@triton.jit
def clip_kernel(x_ptr, out_ptr, n_elements, lo, hi, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.ALL)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def clip_triton(x, out, lo, hi):
    n = out.numel()
    clip_kernel[(triton.cdiv(n, 1024),)](x, out, n, lo, hi, BLOCK_SIZE=1024)
