# impl: triton
# exercise: matmul_fp32
# status: not_implemented
# reason: not implemented: fill in the Triton matmul_fp32_kernel

# %% nbgrader={"grade_id": "matmul_fp32_triton", "solution": true}
# The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.
@triton.jit
def matmul_fp32_kernel(a_ptr, b_ptr, c_ptr, m, n, k, stride_am, stride_bk,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr):
    # YOUR CODE HERE
    raise NotImplementedError()


def matmul_fp32_triton(a, b, c):
    # YOUR CODE HERE
    raise NotImplementedError()
