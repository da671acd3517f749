# impl: triton
# status: compile_error
# reason: is not available in a Triton kernel
# (a cheat: the kernel body calls a plain Python function of the cell, which Triton's front end
#  would call while compiling and the interpreter would run, in the process that holds the
#  data: the device builds kernels from their source and refuses the call)

# %% nbgrader={"grade_id": "softmax_triton", "solution": true}
import torch as _torch


def _answer(x_ptr):
    return _torch.softmax(_torch.zeros(1), 0)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_xr, BLOCK_SIZE: tl.constexpr):
    _answer(x_ptr)
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride_xr + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


def softmax_triton(x, out):
    n_rows, n_cols = x.shape
    softmax_kernel[(n_rows,)](x, out, n_cols, x.stride(0),
                              BLOCK_SIZE=triton.next_power_of_2(n_cols))
