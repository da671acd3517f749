# impl: triton
# status: fallback
# reason: the launcher reads device values on the host (Tensor.item())
# (a launcher that reads a device value on the host to size its launch: the host has no device
#  values, and the verdict says so)

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add_triton(x, y, out):
    n = out.numel()
    block = 1024 if x[0].item() < 1e30 else 256
    vector_add_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
