# impl: triton
# exercise: swiglu
# status: not_implemented
# reason: not implemented: fill in the Triton swiglu_kernel

# %% nbgrader={"grade_id": "swiglu_triton", "solution": true}
# The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.
@triton.jit
def swiglu_kernel(
    gate_ptr,  # gate: n_elements bfloat16, contiguous
    up_ptr,  # up: same
    out_ptr,  # output: same
    n_elements,  # rows * h
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    # YOUR CODE HERE
    raise NotImplementedError()


def swiglu_triton(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor) -> None:
    """out = silu(gate) * up, all [rows, h] bfloat16 and contiguous: a 1-D grid of programs."""
    # YOUR CODE HERE
    raise NotImplementedError()
