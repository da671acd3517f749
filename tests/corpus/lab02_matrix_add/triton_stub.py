# exercise: matrix_add
# impl: triton
# status: not_implemented
# reason: not implemented: fill in the Triton matrix_add_kernel

# %% nbgrader={"grade_id": "matrix_add_triton", "solution": true}
# The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.
@triton.jit
def matrix_add_kernel(x_ptr, y_ptr, out_ptr, n_rows, n_cols, stride_xm, stride_xn, stride_ym,
                      stride_yn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    # YOUR CODE HERE
    raise NotImplementedError()


def matrix_add_triton(x, y, out):
    # YOUR CODE HERE
    raise NotImplementedError()
