# impl: triton
# device: cpu
# status: fail
# reason: [n=1]
# (tl.load without a mask, so without other=0.0 either: the last tile reads past the end of x
#  and sums whatever lies there. Under the interpreter that is heap memory: NaN ("never
#  written") or garbage ("elements differ"), which of the two varies from run to run, hence
#  only the case in the header. On a GPU, memory past a small x may be zeros, and then the sum
#  is right and only the memcheck (an invalid read) catches it: a CPU-only control)

# %% nbgrader={"grade_id": "vector_sum_triton", "solution": true}
@triton.jit
def vector_sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs)  # no mask, no other=0.0
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def vector_sum_triton(x, out):
    n = x.numel()
    out.zero_()
    vector_sum_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
