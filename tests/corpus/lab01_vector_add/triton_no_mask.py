# impl: triton
# status: fail
# reason: out-of-bounds write
# reason: [n=1, float32]
# reason: right after its last element

# %% edit vector_add_triton
# <<<
#     mask = offs < n_elements  # the last block runs past the end: its extra lanes touch nothing
#     # Add in float32 whatever the storage type, then round once to the output's dtype.
#     x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
#     y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
#     tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)
# ===
#     # Add in float32 whatever the storage type, then round once to the output's dtype.
#     x = tl.load(x_ptr + offs).to(tl.float32)  # no mask
#     y = tl.load(y_ptr + offs).to(tl.float32)
#     tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty))
# >>>
