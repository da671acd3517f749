# impl: triton
# status: timeout
# reason: killed after 10 s
# reason: [n=1, float32]
# timeout: 10

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    i = tl.program_id(axis=0)
    while i >= 0:  # i | 1 never turns negative: the kernel never returns
        i = i | 1
        tl.store(out_ptr, tl.load(x_ptr))  # a side effect: the compiler keeps the loop
    offs = i * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def vector_add_triton(x, y, out):
    n = out.numel()
    vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
