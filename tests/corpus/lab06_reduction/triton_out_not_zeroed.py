# impl: triton
# status: fail
# reason: [n=1]
# reason: computed as NaN
# reason: without zeroing it first
# (a correct kernel whose launcher forgets out.zero_(): tl.atomic_add adds to what out holds, and
#  outputs arrive filled with NaN, so NaN + the sum = NaN. The message says the NaN was
#  computed, not left unwritten, and names the likely cause.)

# %% edit vector_sum_triton
# <<<
#     out.zero_()  # the programs add into out: it arrives full of NaN
# ===
# >>>
