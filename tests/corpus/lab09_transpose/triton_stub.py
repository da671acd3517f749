# impl: triton
# status: not_implemented
# reason: not implemented: fill in the Triton transpose_kernel

# %% nbgrader={"grade_id": "transpose_triton", "solution": true}
# The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.
@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xm, BLOCK_SIZE_M: tl.constexpr,
                     BLOCK_SIZE_N: tl.constexpr):
    # YOUR CODE HERE
    raise NotImplementedError()


def transpose_triton(x, out):
    # YOUR CODE HERE
    raise NotImplementedError()
