# impl: triton
# status: pass
# (honest work: the per-program sum written as the tensor method acc.sum(axis=0), which is
#  Triton's own reduction inside a @triton.jit kernel. The static scan looked for library
#  calls there too and called it a torch fallback; device code is skipped now.)

# %% nbgrader={"grade_id": "vector_sum_triton", "solution": true}
@triton.jit
def vector_sum_kernel(
    x_ptr,  # input, n_elements float32, contiguous
    out_ptr,  # output: one float32, zeroed by the launcher
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per tile
):
    pid = tl.program_id(axis=0)
    n_tiles = tl.cdiv(n_elements, BLOCK_SIZE)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)  # one partial sum per lane
    # Tiles pid, pid + num_programs, ...: a fixed grid covers any n.
    for tile in range(pid, n_tiles, tl.num_programs(axis=0)):
        offs = tile * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)  # int32: n stays below 2^31 here
        # The last tile runs past the end: its extra lanes load 0, which adds nothing.
        acc += tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
    # One number per program, added to out by one atomic.
    tl.atomic_add(out_ptr, acc.sum(axis=0))


def vector_sum_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x[0] + ... + x[n-1]: a fixed grid of programs, each adding its sum to out."""
    assert x.ndim == 1 and x.stride(0) == 1, f"need a contiguous vector, got {x.stride()}"
    assert out.shape == (), f"out must be a 0-d tensor, got shape {tuple(out.shape)}"
    n = x.numel()
    BLOCK_SIZE = 4096
    max_programs = 1024  # a few per SM: few atomics, every SM busy
    grid = (min(triton.cdiv(n, BLOCK_SIZE), max_programs),)
    out.fill_(0.0)  # the programs add into out: it arrives full of NaN
    vector_sum_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)


