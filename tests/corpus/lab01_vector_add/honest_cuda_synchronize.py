# impl: triton
# status: pass
# (honest work: torch.cuda.synchronize() after the launch, as the tutorials time kernels. On
#  a GPU it waits for the kernel; without one every launch has finished already, and the
#  grader makes it the no-op it is instead of torch's "Torch not compiled with CUDA".)

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
@triton.jit
def vector_add_kernel(
    x_ptr,  # first input: float32, float16 or bfloat16
    y_ptr,  # second input, same dtype
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end: its extra lanes touch nothing
    # Add in float32 whatever the storage type, then round once to the output's dtype.
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y, launched as a 1-D grid of programs; any of float32, float16, bfloat16."""
    assert x.shape == y.shape == out.shape, f"shapes differ: {x.shape}, {y.shape}, {out.shape}"
    assert x.dtype == y.dtype == out.dtype, f"dtypes differ: {x.dtype}, {y.dtype}, {out.dtype}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
    torch.cuda.synchronize()  # wait for the kernel, as the tutorials do

