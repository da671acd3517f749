# impl: triton
# exercise: relu
# status: not_implemented
# reason: not implemented: fill in the Triton relu_kernel

# %% nbgrader={"grade_id": "relu_triton", "solution": true}
# The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.
@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # YOUR CODE HERE
    raise NotImplementedError()


def relu_triton(x, out):
    # YOUR CODE HERE
    raise NotImplementedError()
