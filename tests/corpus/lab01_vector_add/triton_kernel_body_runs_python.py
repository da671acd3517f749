# impl: triton
# status: compile_error
# reason: is not part of Triton's language
# (a cheat: a kernel body that reaches Python's os module through triton's own modules; Triton's
#  front end would call it while compiling, and the interpreter would run it, in the process
#  that holds the data: the device refuses to build it)

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    triton.knobs.os.system("echo from the kernel")
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add_triton(x, y, out):
    n = out.numel()
    vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
