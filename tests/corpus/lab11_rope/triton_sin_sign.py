# impl: triton
# exercise: rope_qk
# status: fail
# reason: elements differ
# (sin's sign on the wrong term: x1 * c + x2 * s, x2 * c - x1 * s. A rotation by -angle, the
# inverse of the one asked for: every norm is right, every value is not.)

# %% edit rope_qk_triton
# <<<
#         tl.store(out_ptrs, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
#         tl.store(out_ptrs + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty),
# ===
#         tl.store(out_ptrs, (x1 * c + x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
#         tl.store(out_ptrs + half_dim, (x2 * c - x1 * s).to(out_ptr.dtype.element_ty),
# >>>
