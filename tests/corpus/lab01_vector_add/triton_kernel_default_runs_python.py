# impl: triton
# status: compile_error
# reason: a kernel argument's default must be
# (a cheat: Python in a kernel argument's default, which runs when the function is defined:
#  the device builds kernels from their source and refuses it)

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements,
                      BLOCK_SIZE: tl.constexpr = __import__("os").getpid() % 1 + 1024):  # noqa: B008
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add_triton(x, y, out):
    n = out.numel()
    vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n)
