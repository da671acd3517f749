# impl: triton
# exercise: swiglu
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but unfused, as eager torch: out = silu(gate), then out = out * up. 5 * rows * h
# elements of traffic instead of 3: at the same bandwidth, 0.6x the fused reference.)

# %% edit swiglu_triton
# <<<
# def swiglu_kernel(
#     gate_ptr,  # gate: n_elements bfloat16, contiguous
# ~~~
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
#     swiglu_kernel[grid](gate, up, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
# ===
# def silu_kernel(gate_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     gate = tl.load(gate_ptr + offs, mask=mask).to(tl.float32)
#     tl.store(out_ptr + offs, (gate * tl.sigmoid(gate)).to(out_ptr.dtype.element_ty), mask=mask)
#
#
# @triton.jit
# def swiglu_kernel(act_ptr, up_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     act = tl.load(act_ptr + offs, mask=mask).to(tl.float32)
#     up = tl.load(up_ptr + offs, mask=mask).to(tl.float32)
#     tl.store(out_ptr + offs, (act * up).to(out_ptr.dtype.element_ty), mask=mask)
#
#
# def swiglu_triton(gate, up, out):
#     n = out.numel()
#     grid = (triton.cdiv(n, 2048),)
#     silu_kernel[grid](gate, out, n, BLOCK_SIZE=2048, num_warps=8)
#     swiglu_kernel[grid](out, up, out, n, BLOCK_SIZE=2048, num_warps=8)
# >>>
