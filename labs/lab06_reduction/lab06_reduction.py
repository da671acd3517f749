# %% [markdown]
# # Lab 06 — Sum reduction, in Triton and in CUDA C
#
# `out = x[0] + x[1] + … + x[n-1]` for `n` float32 values (up to 2^28 of them), into `out`, a
# **single float32** (a 0-d tensor). Every element is read once and all of them end up in one
# number, so the work has to be combined across lanes, threads, warps, blocks — and, since no
# block can wait for another, across the whole grid through memory.
#
# **What you will learn**
# - the levels of a reduction: a private partial sum per thread (a grid-stride loop), the 32
#   lanes of a warp combined in registers (`__shfl_down_sync`), the warps of a block through
#   shared memory (with `__syncthreads()`), the blocks of the grid with `atomicAdd`;
# - the same hierarchy in Triton, where `tl.sum` does the warp and block levels for you;
# - two traps of accumulating into an output: it must start at zero, and the order in which
#   atomics land changes the last bits of the result from run to run;
# - why float32 summation needs a tree, not one long chain.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | a partial sum per worker | each program keeps a vector `acc` of `BLOCK_SIZE` partial sums, `acc += tl.load(...)` | each thread keeps one `float v` in a register, `v += x[i]` |
# | cover any `n` with a fixed grid | a loop over tiles: `for tile in range(pid, n_tiles, tl.num_programs(0))` | a grid-stride loop: `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)` |
# | the elements past the end | `tl.load(..., mask=offs < n_elements, other=0.0)`: masked lanes add 0, the identity of `+` | the loop bound `i < n`: a thread with nothing to do contributes `v = 0` |
# | combine a warp | (inside `tl.sum`) | `v += __shfl_down_sync(0xffffffff, v, offset)` for offset = 16, 8, 4, 2, 1: lane 0 ends with the warp's sum (`__shfl_xor_sync` gives it to every lane) |
# | combine a block | `tl.sum(acc, axis=0)`: the compiler emits the shuffles and the shared memory | lane 0 of each warp writes `__shared__ float per_warp[32]`, `__syncthreads()`, then the first warp combines those |
# | combine the grid | `tl.atomic_add(out_ptr, s)`, once per program | `atomicAdd(out, v)`, once per block, by thread 0 |
# | `out` starts at zero | the launcher: `out.zero_()` (outputs arrive filled with NaN) | the same |
# | wide loads | automatic: a block of contiguous offsets becomes 16-byte loads | by hand: `float4` loads of 4 floats, with the first and last few floats one by one |
#
# **What you write**: the Triton kernel `vector_sum_kernel` and its launcher
# `vector_sum_triton`; in CUDA C (the string `VECTOR_SUM_CU`) the helpers `warp_reduce_sum` and
# `block_reduce_sum`, the kernel `vector_sum_kernel`, and the launcher `vector_sum_cuda`. Each
# launcher receives `out` already allocated (shape `[]`, filled with NaN): write the sum into
# it.
#
# **How you are graded**: the sum of many sizes you do not see (1, 2, 3, tails around 128,
# 1024 and 4096, a vector whose first element is not 16-byte aligned, one holding a NaN),
# fresh random inputs in [-1, 2) each time, compared with a float64 sum within a relative
# error of 1e-4; on a GPU, also 2^27 + 3 elements, and your bandwidth on 2^28 elements
# (1 GiB) against a reference. Without a GPU, Triton runs in its interpreter and CUDA C on the
# CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab06_reduction"

# %% [markdown]
# ## Float32 sums: why a tree
#
# A float32 has 24 bits of mantissa. Once a running sum reaches 2^24 = 16777216, adding 1.0
# changes nothing: `np.float32(2**24) + np.float32(1.0) == np.float32(2**24)` is `True`. One
# thread adding 2^27 values in [-1, 2) one after another stalls near 2^25 and returns about
# **half** the true sum. Each level of a reduction — many threads each summing a short
# stretch, then a tree of pairwise additions — keeps the numbers added of similar size, and
# the error small: the grader's tolerance (relative 1e-4) is met by any order whose longest
# chain of one-after-another additions is up to about a million; it is not met by one chain
# of 2^27.
#
# ## Part 1 — Triton
#
# Each program sums its tiles of `BLOCK_SIZE` elements into a vector of partial sums, reduces
# that vector to one number with `tl.sum`, and adds it to `out` with `tl.atomic_add`. Every
# program adds into the same float, so `out` must hold 0 before the first one arrives: the
# launcher zeroes it (`out.zero_()` is an allocation-style fill, allowed in a launcher).
#
# <details><summary>Hint 1 — one program per tile</summary>
#
# Start with the simplest grid: one program per tile of `BLOCK_SIZE` elements,
# `grid = (triton.cdiv(n, BLOCK_SIZE),)`. The program loads its tile with a mask, as in lab 01,
# sums it with `tl.sum(x, axis=0)` (a scalar) and adds that scalar to `out_ptr` with
# `tl.atomic_add`. The launcher calls `out.zero_()` before launching. If `check` says your
# output was "computed as NaN": `out` arrived full of NaN, and NaN + anything is NaN.
# </details>
#
# <details><summary>Hint 2 — the masked lanes must add nothing</summary>
#
# A masked `tl.load` without `other=` leaves the masked lanes undefined: on a GPU they can hold
# anything, and `tl.sum` adds them in. Give the load `other=0.0`, the value that changes no sum.
# (Triton's interpreter happens to fill them with 0, so this bug can pass on a laptop and fail
# on a GPU.)
# </details>
#
# <details><summary>Hint 3 — fewer programs, fewer atomics (for full perf marks)</summary>
#
# With one program per 4096 floats, 2^28 elements make 65536 programs and 65536 atomic adds to
# one address, which the memory system performs one after another. Launch a fixed number of
# programs instead (about 1024: a few per SM), and let each loop over the tiles
# `pid, pid + num_programs, pid + 2 * num_programs, …` (`tl.num_programs(axis=0)`), adding each
# tile into a vector accumulator `acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)`. One `tl.sum`
# and one atomic per program at the end.
# </details>

# %% nbgrader={"grade": false, "grade_id": "vector_sum_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def vector_sum_kernel(
    x_ptr,  # input, n_elements float32, contiguous
    out_ptr,  # output: one float32, zeroed by the launcher
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per tile
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    n_tiles = tl.cdiv(n_elements, BLOCK_SIZE)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)  # one partial sum per lane
    # Tiles pid, pid + num_programs, ...: a fixed grid covers any n.
    for tile in range(pid, n_tiles, tl.num_programs(axis=0)):
        offs = tile * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)  # int32: n stays below 2^31 here
        # The last tile runs past the end: its extra lanes load 0, which adds nothing.
        acc += tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
    # One number per program, added to out by one atomic.
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0))
    ### END SOLUTION


def vector_sum_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x[0] + ... + x[n-1]: a fixed grid of programs, each adding its sum to out."""
    ### BEGIN SOLUTION
    assert x.ndim == 1 and x.stride(0) == 1, f"need a contiguous vector, got {x.stride()}"
    assert out.shape == (), f"out must be a 0-d tensor, got shape {tuple(out.shape)}"
    n = x.numel()
    BLOCK_SIZE = 4096
    max_programs = 1024  # a few per SM: few atomics, every SM busy
    grid = (min(triton.cdiv(n, BLOCK_SIZE), max_programs),)
    out.zero_()  # the programs add into out: it arrives full of NaN
    vector_sum_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — CUDA C
#
# The hierarchy by hand, bottom up:
#
# 1. **thread**: a grid-stride loop adds this thread's elements into a register `v` (a thread
#    with no elements keeps `v = 0`);
# 2. **warp** (`warp_reduce_sum`): five shuffles combine the 32 lanes' values, in registers,
#    with no barrier — `__shfl_down_sync(0xffffffff, v, offset)` returns `v` of the lane
#    `offset` above;
# 3. **block** (`block_reduce_sum`): lane 0 of each warp writes its warp's sum to
#    `__shared__ float per_warp[32]`; `__syncthreads()` makes every write visible before any is
#    read; the first warp loads those (0 past the last warp) and combines them with
#    `warp_reduce_sum` again;
# 4. **grid**: thread 0 of each block does `atomicAdd(out, v)`; the launcher zeroes `out`
#    first.
#
# Every thread of the block must reach `__syncthreads()` and each shuffle: do not `return`
# early from threads that have no elements, let them carry `v = 0`.
#
# **Wide loads.** For full perf marks read 16 bytes per thread per step, a `float4`
# (`reinterpret_cast<const float4 *>(...)`), as lab 01 did with `uint4`. A `float4` load must
# start on a 16-byte boundary, and `x` may be a view that starts anywhere (one test's `x` starts
# 4 bytes past a boundary): add the first `head = ((16 - (size_t)x % 16) % 16) / 4` floats one by
# one, then the whole `float4`s from `x + head`, then the 0 to 3 floats left after them.
#
# **The alternative to atomics: two passes.** Each block writes its sum to `partial[blockIdx.x]`
# (a `torch.empty(blocks)` scratch buffer), and a second launch of one block sums `partial`
# into `out`. Nothing needs zeroing, no atomics, and the result is bit-for-bit the same every
# run; it costs a second launch (a few microseconds). torch's own reductions fold both passes
# into one launch: the last block to finish (it counts the finished blocks with an atomic)
# sums the partials.
#
# <details><summary>Hint 1 — the warp and the block</summary>
#
# A warp is a tree of five steps: in each, every lane adds the value of the lane `offset` above
# it, and `offset` halves from 16 to 1; after the last step lane 0 holds the warp's sum (the
# other lanes hold partial sums nobody needs). In `block_reduce_sum`, a thread's lane is
# `threadIdx.x % 32` and its warp `threadIdx.x / 32`. After the barrier, the first warp reads
# one warp sum per lane (0 for the lanes past the block's last warp) and reduces again. The
# result matters in thread 0 only.
# </details>
#
# <details><summary>Hint 2 — "the result depends on thread order"</summary>
#
# Without a GPU, every launch runs a second time with each block's threads in reverse order at
# every barrier. A result that changes is a race: a thread read shared memory that another
# thread had not written yet (or had already overwritten) because no `__syncthreads()` stood
# between the write and the read. Every value that crosses from one warp to another through
# `__shared__` needs a barrier between the write and the read.
# </details>
#
# <details><summary>Hint 3 — the launch and the loads</summary>
#
# 256 threads per block and about 1024 blocks (capped by `cdiv(n, 4 * 256)` so that a small `n`
# does not launch empty blocks) keep every SM busy with few atomics. The grid-stride loop runs
# over float4 indices `k < n4` with `n4 = (n - head) / 4`; the head floats are added by the
# threads with global index `i < head`, the tail floats `x[head + 4 * n4 + i]` by those with
# `i < n - head - 4 * n4`. `#pragma unroll 4` before the loop lets the compiler issue several
# loads before waiting for the first.
# </details>

# %% nbgrader={"grade": false, "grade_id": "vector_sum_cu", "locked": false, "schema_version": 3, "solution": true}
VECTOR_SUM_CU = r"""
// The 32 lanes' values combined with shuffles (registers only, no barrier): the warp's sum
// ends up in lane 0.
__device__ float warp_reduce_sum(float v)
{
    /// BEGIN SOLUTION
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);  // v of the lane `offset` above
    }
    /// END SOLUTION
    return v;
}

// The block's values combined: each warp with warp_reduce_sum, then the warps' sums through
// shared memory by the first warp. The block's sum ends up in thread 0. Every thread of the
// block must call it (it has a barrier).
__device__ float block_reduce_sum(float v)
{
    /// BEGIN SOLUTION
    __shared__ float per_warp[32];  // one sum per warp: at most 1024 / 32 warps
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_reduce_sum(v);
    if (lane == 0) per_warp[warp] = v;
    __syncthreads();  // every warp's sum is in shared memory before the first warp reads them
    if (warp == 0) {
        const int n_warps = (blockDim.x + 31) / 32;
        v = lane < n_warps ? per_warp[lane] : 0.0f;  // 0: the lanes past the last warp add nothing
        v = warp_reduce_sum(v);
    }
    /// END SOLUTION
    return v;
}

__global__ void vector_sum_kernel(const float *__restrict__ x,  // input: n floats, any alignment
                           float *__restrict__ out,      // output: one float, zeroed first
                           int n)                        // number of elements
{
    /// BEGIN SOLUTION
    // 1. Thread: a grid-stride loop over whole float4s (16-byte loads), from the first 16-byte
    //    boundary of x on; the 0-3 floats before it (head) and after the last float4 (tail)
    //    are added one by one.
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    int head = (int)((16 - (size_t)x % 16) % 16) / 4;
    if (head > n) head = n;
    const int n4 = (n - head) / 4;
    const int tail = head + 4 * n4;
    const float4 *x4 = reinterpret_cast<const float4 *>(x + head);
    float v = 0.0f;  // a thread with no elements adds 0
#pragma unroll 4
    for (int k = i; k < n4; k += stride) {
        const float4 q = x4[k];
        v += (q.x + q.y) + (q.z + q.w);
    }
    if (i < head) v += x[i];
    if (i < n - tail) v += x[tail + i];
    // 2-3. Warp and block.
    v = block_reduce_sum(v);
    // 4. Grid: one atomic per block.
    if (threadIdx.x == 0) atomicAdd(out, v);
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "vector_sum_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
vector_sum_kernel_cu = SourceModule(VECTOR_SUM_CU).get_function("vector_sum_kernel")


def vector_sum_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x[0] + ... + x[n-1] with vector_sum_kernel_cu: a fixed grid, one atomicAdd per block.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    assert x.ndim == 1 and x.stride(0) == 1, f"need a contiguous vector, got {x.stride()}"
    assert out.shape == (), f"out must be a 0-d tensor, got shape {tuple(out.shape)}"
    n = x.numel()
    threads = 256
    max_blocks = 1024  # about 8 blocks per SM: every SM busy, few atomics
    # A float4 per thread at least, and at least one block.
    blocks = max(1, min(triton.cdiv(n, 4 * threads), max_blocks))
    out.zero_()  # the blocks add into out: it arrives full of NaN
    vector_sum_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n),
        block=(threads, 1, 1),
        grid=(blocks, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ## Check your work
#
# Each check sums several sizes (1 element, tails around 128, a vector that starts 4 bytes past
# a 16-byte boundary, a prime near 10^5) with fresh random inputs in [-1, 2) and compares with
# a float64 sum. A failure names the size, the value you returned and the expected one.

# %% nbgrader={"grade": true, "grade_id": "test_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", vector_sum_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", vector_sum_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", vector_sum_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", vector_sum_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ## Atomics and the last bits
#
# Floating-point addition is not associative: `(a + b) + c` and `a + (b + c)` can differ in
# the last bit. The blocks' `atomicAdd`s land in whatever order the blocks finish, which changes
# from run to run, so the same input can give sums that differ in their last bits. Both are
# correct to within float32 rounding — that is why the checks compare with a tolerance — but
# the result is not reproducible bit for bit. A two-pass reduction (above) fixes the order
# and is deterministic. The cell below sums one vector a few times with each of your launchers
# and prints the bits, then sums the same values in reverse order: the same sum on paper,
# other roundings in float32. On a GPU the repeated runs can already differ (the atomics race).
# Without one, Triton's interpreter runs its programs one after another, always in the same
# order, so only the reversed vector changes its bits; the CPU backend runs CUDA blocks on
# several cores at once, and its repeated runs may differ too.

# %%
def same_input_sums(launcher, x, runs=4):
    """The float32 bits of `runs` sums of the same x."""
    bits = []
    for _ in range(runs):
        out = torch.full((), float("nan"), device=x.device)
        launcher(x, out)
        bits.append(f"{out.item():.9g} (0x{np.float32(out.item()).view(np.uint32):08x})")
    return bits


x_demo = torch.rand(1 << 20, device="cuda" if torch.cuda.is_available() else "cpu") * 3 - 1
print(f"float64 sum: {x_demo.double().sum().item():.9g}")
for name, launcher in (("triton", vector_sum_triton), ("cuda", vector_sum_cuda)):
    try:
        print(f"{name}: {', '.join(same_input_sums(launcher, x_demo))}")
        print(f"{name}, x reversed: {same_input_sums(launcher, x_demo.flip(0), runs=1)[0]}")
    except NotImplementedError:
        print(f"{name}: fill in vector_sum_{name} first")

# %% [markdown]
# ## How fast?
#
# On a GPU, `bench` times both launchers against `torch.sum` on sizes from L2-resident to far
# larger than the L2, prints GB/s and % of the device's copy bandwidth, and plots them. Only
# reading counts (4 bytes per element, plus 4 for `out`). Without a GPU it says "skipped: needs
# a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", vector_sum_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", vector_sum_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", vector_sum_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", vector_sum_cuda, graded=True)
### END HIDDEN TESTS
