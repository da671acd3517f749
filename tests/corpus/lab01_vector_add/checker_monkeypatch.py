# impl: triton
# status: fail
# reason: never written
# parity: no
# (a cheat: the comparison and the notebook's check replaced by ones that always pass, and a
#  kernel that does nothing; the checks run in processes the submission never reaches, so the
#  output is seen as it is: never written. In the student's own kernel the replaced check is
#  theirs to fool)

# %% nbgrader={"grade_id": "vector_add_triton", "solution": true}
import grader.notebook

torch.allclose = lambda *args, **kwargs: True
grader.notebook.check = lambda *args, **kwargs: None


@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pass  # does nothing, hoping the checks were neutered


def vector_add_triton(x, y, out):
    vector_add_kernel[(1,)](x, y, out, out.numel(), BLOCK_SIZE=128)
