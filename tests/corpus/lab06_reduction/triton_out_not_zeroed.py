# impl: triton
# status: fail
# reason: [n=1]
# reason: computed as NaN
# reason: without zeroing it first
# (a correct kernel whose launcher forgets out.zero_(): tl.atomic_add adds to what out holds, and
#  outputs arrive filled with NaN, so NaN + the sum = NaN. The message says the NaN was
#  computed, not left unwritten, and names the likely cause.)

# %% nbgrader={"grade_id": "vector_sum_triton", "solution": true}
@triton.jit
def vector_sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def vector_sum_triton(x, out):
    n = x.numel()
    # missing: out.zero_()
    vector_sum_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
