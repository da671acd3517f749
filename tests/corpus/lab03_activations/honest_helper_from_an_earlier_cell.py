# impl: triton
# exercise: leaky_relu
# status: pass
# (honest work: the leaky_relu cell calls a Python helper and a @triton.jit helper that the
#  relu cell above defined, as a notebook (one namespace) allows; the grader builds the host's
#  module and the device's kernels from the cells above the exercise's too)

# %% nbgrader={"grade_id": "relu_triton", "solution": true}
@triton.jit
def load_f32(ptr, offs, mask):
    return tl.load(ptr + offs, mask=mask).to(tl.float32)


def one_dim_grid(n: int, block: int) -> tuple[int]:
    return (triton.cdiv(n, block),)


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = load_f32(x_ptr, offs, mask)
    tl.store(out_ptr + offs, tl.where(x < 0.0, 0.0, x).to(out_ptr.dtype.element_ty), mask=mask)


def relu_triton(x, out):
    n = out.numel()
    relu_kernel[one_dim_grid(n, 1024)](x, out, n, BLOCK_SIZE=1024)


# %% nbgrader={"grade_id": "leaky_relu_triton", "solution": true}
@triton.jit
def leaky_relu_kernel(x_ptr, out_ptr, n_elements, alpha, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = load_f32(x_ptr, offs, mask)  # defined in the relu cell
    y = tl.where(x < 0.0, alpha * x, x)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def leaky_relu_triton(x, out, alpha):
    n = out.numel()
    leaky_relu_kernel[one_dim_grid(n, 1024)](x, out, n, alpha, BLOCK_SIZE=1024)
