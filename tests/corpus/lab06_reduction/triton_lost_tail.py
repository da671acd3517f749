# impl: triton
# status: fail
# reason: [n=1]
# reason: elements differ
# (one program per whole block: grid = n // BLOCK_SIZE rounds down, so the last, partial block
#  is never summed; n = 1 launches no program at all and out keeps its 0)

# %% nbgrader={"grade_id": "vector_sum_triton", "solution": true}
@triton.jit
def vector_sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def vector_sum_triton(x, out):
    n = x.numel()
    out.zero_()
    vector_sum_kernel[(n // 1024,)](x, out, n, BLOCK_SIZE=1024)  # should be triton.cdiv(n, 1024)
