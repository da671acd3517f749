# impl: triton
# exercise: relu
# status: fail
# reason: [n=997, x holds nan, inf, -inf, float32]
# reason: 1 of 997 elements differ

# %% nbgrader={"grade_id": "relu_triton", "solution": true}
# relu written as "x if x > 0 else 0": NaN > 0 is False, so the NaN goes to the 0 branch
# (torch.relu(nan) is nan). tl.maximum(x, 0.0) drops it the same way.
@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.where(x > 0.0, x, 0.0)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def relu_triton(x, out):
    n = out.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
