# impl: cuda
# status: fail
# reason: [n=1]
# reason: computed as NaN
# reason: without zeroing it first
# (a correct kernel whose launcher forgets out.zero_(): atomicAdd adds to what out holds, and
#  outputs arrive filled with NaN, so NaN + the sum = NaN. The message says the NaN was
#  computed, not left unwritten, and names the likely cause.)

# %% edit vector_sum_cuda
# <<<
#     out.zero_()  # the blocks add into out: it arrives full of NaN
# ===
# >>>
