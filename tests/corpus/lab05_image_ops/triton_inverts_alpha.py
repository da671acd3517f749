# impl: triton
# exercise: invert
# status: fail
# reason: [h=1, w=1, c=4, uint8] out
# reason: elements differ

# %% nbgrader={"grade_id": "invert_triton", "solution": true}
# Inverts every byte, alpha included: one byte in four is wrong (255 - a != a for every a).
@triton.jit
def invert_kernel(rgba_ptr, out_ptr, n_bytes, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_bytes
    tl.store(out_ptr + offs, 255 - tl.load(rgba_ptr + offs, mask=mask), mask=mask)


def invert_triton(rgba, out):
    n_bytes = out.numel()
    invert_kernel[(triton.cdiv(n_bytes, 4096),)](rgba, out, n_bytes, BLOCK_SIZE=4096)
