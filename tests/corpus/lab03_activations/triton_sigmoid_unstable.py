# impl: triton
# exercise: sigmoid
# status: fail
# reason: [n=1999, x scale=100.0, float32]
# reason: elements differ

# %% nbgrader={"grade_id": "sigmoid_triton", "solution": true}
# sigmoid as e^x / (1 + e^x), in float32: exp overflows past x = 88.7 and the quotient is
# inf / inf = NaN. Inputs scaled by 100 put about a fifth of the elements there.
@triton.jit
def sigmoid_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    e = tl.exp(x)
    tl.store(out_ptr + offs, (e / (1.0 + e)).to(out_ptr.dtype.element_ty), mask=mask)


def sigmoid_triton(x, out):
    n = out.numel()
    sigmoid_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
