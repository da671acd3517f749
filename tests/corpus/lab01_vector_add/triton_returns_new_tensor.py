# impl: triton
# status: fail
# reason: never written
# reason: returned a float16 tensor of shape (1,)

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


def vector_add_triton(x, y, out):
    result = torch.empty(x.shape, dtype=torch.float16, device=x.device)  # its own output
    n = x.numel()
    vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, result, n, BLOCK_SIZE=1024)
    return result
