# impl: triton
# status: fail
# reason: never written
# parity: no
# (a cheat: the comparison and the notebook's check replaced by ones that always pass, and a
#  kernel that does nothing; the checks run in processes the submission never reaches, so the
#  output is seen as it is: never written. In the student's own kernel the replaced check is
#  theirs to fool)

# %% edit vector_add_triton
# <<<
# @triton.jit
# ===
# import grader.notebook
#
# torch.allclose = lambda *args, **kwargs: True
# grader.notebook.check = lambda *args, **kwargs: None
#
#
# @triton.jit
# >>>
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     # n = 0: does nothing, hoping the checks were neutered
#     vector_add_kernel[grid](x, y, out, 0, BLOCK_SIZE=BLOCK_SIZE)
# >>>
