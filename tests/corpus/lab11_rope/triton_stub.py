# impl: triton
# exercise: rope
# status: not_implemented
# reason: not implemented: fill in the Triton rope_kernel

# %% nbgrader={"grade_id": "rope_triton", "solution": true}
# The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.
@triton.jit
def rope_kernel(
    x_ptr,  # [tokens, heads, 2 * half_dim] bfloat16, head rows contiguous
    cos_ptr,  # [tokens, half_dim] float32, contiguous
    sin_ptr,  # [tokens, half_dim] float32, contiguous
    out_ptr,  # [tokens, heads, 2 * half_dim] bfloat16, contiguous
    n_heads,  # heads per token
    half_dim,  # pairs per head: head_dim // 2
    stride_xt,  # elements between two tokens of x
    stride_xh,  # elements between two heads of one token of x
    BLOCK_H: tl.constexpr,  # heads per step
    BLOCK_D: tl.constexpr,  # columns per half: a power of two >= half_dim
):
    # YOUR CODE HERE
    raise NotImplementedError()


def rope_triton(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, out: torch.Tensor) -> None:
    """out = rope(x): x [tokens, heads, 2 * half_dim] (any token and head strides), tables
    [tokens, half_dim]; one program per token."""
    # YOUR CODE HERE
    raise NotImplementedError()
