# impl: triton
# status: fallback
# reason-any: no Triton kernel was launched | numpy computing on a tensor

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pass


def vector_add_triton(x, y, out):
    if out.device.type == "cpu":
        import numpy  # numpy on the CPU: no torch op, no kernel
        out.numpy()[:] = getattr(numpy, "ad" + "d")(x.numpy(), y.numpy())
    # on a GPU: nothing at all, and still no kernel
