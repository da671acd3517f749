# %% [markdown]
# # Lab 13 — Permutations: reverse and interleave, in Triton and in CUDA C
#
# Ops that compute nothing: each element of the output is an element of the input, moved.
# On vectors of **float32, float16 or bfloat16**, each written twice:
#
# | op | what it does | as torch writes it |
# |---|---|---|
# | `flip` (reverse) | `out[i] = x[n - 1 - i]` | `torch.flip(x, [0])` |
# | `flip_inplace` | `out = x`, then `out` reversed in place by swapping its ends pair by pair | `x.flip(0)` |
# | `interleave` | `out[2i] = a[i]`, `out[2i + 1] = b[i]` (`out` has `2n` elements) | `torch.stack((a, b), 1).view(-1)` |
# | `deinterleave` | `a[i] = x[2i]`, `b[i] = x[2i + 1]` (two outputs) | `x.view(-1, 2).t().contiguous()` (rows `a` and `b`) |
#
# **What you will learn**
#
# 1. **A permutation is a copy**, and a copy is as fast as its memory accesses: both sides
#    **coalesced** (the threads of a warp touch one contiguous stretch) and **wide** (16 bytes
#    per thread per load and per store). The obvious kernels keep one side and lose the other.
# 2. **Reverse by tiles**: a program (or a thread) reads a contiguous tile of `x`, turns it
#    around in registers, and writes it to the mirrored tile of `out`: both sides run forwards.
# 3. **The tail at the other end**: when `n` is not a multiple of the tile, reversing moves the
#    ragged end of `x` to the *start* of `out`, and the two sides of a 16-byte chunk no longer
#    line up: they are shifted by `n % PACK` elements.
# 4. **In place, without a race**: reversing an array where it lies needs each thread to own
#    both ends of a pair; a thread that reads what another overwrites in the same launch
#    gets whichever version is there.
# 5. **Pairs in registers**: interleaving reads 16 bytes of `a` and 16 of `b` and writes 32
#    bytes of pairs; deinterleaving the reverse. Nothing is strided in memory: the shuffle
#    happens between the load and the store.
# 6. **Values are bits**: a permutation never looks at a value, so in CUDA C one kernel per
#    *element size* does (a 4-byte word for float32, a 2-byte word for float16 and bfloat16).
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | turn a tile around | `tl.flip(x, 0)` on a loaded block (its length a power of 2) | a loop over the `PACK` elements of a `uint4`, reading one and writing the other end first |
# | the mirrored tile | `src = n - (pid + 1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`, masked with `src >= 0` | chunk `i` of `out` comes from the chunks `n / PACK - 1 - i` and `n / PACK - i` of `x` |
# | pairs | `tl.interleave(a, b)`: `[a0, b0, a1, b1, ...]`; `tl.split(tl.reshape(x, [BLOCK_SIZE, 2]))`: the two columns | an array of `T` over two `uint4`: `pairs[2k] = a[k]`, `pairs[2k + 1] = b[k]` |
# | the copy's element type | the loaded block keeps its dtype: no `.to(tl.float32)` needed | `unsigned int` for 4-byte elements, `unsigned short` for 2-byte ones |
# | wide accesses | the compiler vectorises a contiguous, aligned `tl.load` / `tl.store` | you do: `reinterpret_cast<const uint4 *>(x)[i]`, 16-byte aligned, and a scalar tail |
#
# **What you write**, per op: the Triton kernel `<op>_kernel` and its launcher `<op>_triton`;
# in CUDA C (the string `<OP>_CU`) the body of the template `<op><T>`, which the kernels
# `<op>_kernel_b32` and `<op>_kernel_b16` call, and the launcher `<op>_cuda`. Each launcher
# receives its outputs already allocated: `flip_triton(x, out)`, `interleave_cuda(a, b,
# out)`, `deinterleave_triton(x, a, b)`; `flip_inplace_triton(x, out)` copies `x` into `out`
# and reverses `out` where it lies. Inputs and outputs are contiguous and 16-byte aligned.
#
# **How you are graded**: exact equality (every element, every dtype) on sizes you do not see:
# one element, sizes that are not multiples of a block or of a 16-byte chunk, more than 2^16
# elements; on a GPU, the bandwidth of your kernels against a reference. Without a GPU, Triton
# runs in its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check


import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab13_permute"

# %% [markdown]
# ## Coalesced on both sides
#
# A warp's 32 threads issue a load together. When their addresses fall in one contiguous
# stretch, the memory system serves them with a few wide transactions (*coalesced*); when each
# thread's address is far from its neighbours', every thread costs a transaction of its own, of
# which it uses a few bytes. A copy has two sides, and a permutation is the copy where the
# obvious indexing coalesces only one of them:
#
# - **reverse**, `out[i] = x[n - 1 - i]` one element per thread: thread `i` reads `x[n - 1 - i]`,
#   so neighbouring threads read neighbouring elements *downwards*. That still coalesces (the
#   addresses fill the same lines), but no thread holds 16 contiguous bytes, so nothing can be
#   loaded wide. The fix: read a tile of `x` *upwards*, as any copy, and turn it around in
#   registers before writing it where it goes.
# - **interleave**, one pair per thread: each thread loads 4 bytes of `a` and 4 of `b` (narrow)
#   and stores 8. The fix: each thread takes 16 bytes of `a` and 16 of `b`, and writes the 32
#   bytes of pairs they make, in two 16-byte stores.
#
# **Triton** sees blocks, not threads: load a contiguous block, rearrange it with the
# block operations (`tl.flip`, `tl.interleave`, `tl.reshape` and `tl.split`), store a
# contiguous block. The compiler keeps both sides wide and moves the elements between threads
# itself, and that moving has a price that depends on how far an element travels. `tl.interleave`
# and `tl.split` pair up neighbours; `tl.flip` along a 1024-element block sends every element to
# the far end of the block, through one exchange between threads per bit of the index (ten of
# them). Measured on an H100 (2026-12-06, `benchmarks/tune_references.py lab13 --variant`), a
# `flip` that way ran at 24% of the copy roof in 16-bit, 45% in float32. So reverse the big
# structure with index arithmetic and flip only what one thread holds: see the tile as rows of
# 16 bytes, take the rows in mirrored order by their addresses, and `tl.flip` each row along
# its short axis, inside one thread's registers: 98%.
#
# **CUDA C**: thread `i` handles the `i`-th 16-byte chunk, `PACK = sizeof(uint4) / sizeof(T)`
# elements (4 four-byte or 8 two-byte words): it loads whole `uint4`s through
# `reinterpret_cast<const uint4 *>(x)`, sees their elements through a `const T *` to the local
# `uint4`, fills an output `uint4` through a `T *` (a `#pragma unroll` loop of `PACK` steps
# keeps it in registers), and stores it in one piece. The elements after the last whole chunk
# go to the first threads of the grid, one each. Since nothing is computed, `T` is an unsigned
# integer of the element's size: the launcher picks the kernel by `element_size()`.

# %% [markdown]
# ## 1 — flip: reverse an array
#
# `out[i] = x[n - 1 - i]` for `n` elements.
#
# Cut `out` into tiles of `BLOCK_SIZE` elements; tile `pid` of `out` (elements
# `pid * BLOCK_SIZE ... pid * BLOCK_SIZE + BLOCK_SIZE - 1`) is made of the elements
# `n - (pid + 1) * BLOCK_SIZE ... n - 1 - pid * BLOCK_SIZE` of `x`, in the other order: the
# **mirrored tile**. Read it forwards, flip it, write it forwards.
#
# <details><summary>Hint 1 — where tile pid comes from</summary>
#
# Take `n = 10` and `BLOCK_SIZE = 4`. Tile 0 of `out` is `x[9], x[8], x[7], x[6]`: the
# elements `6 ... 9` of `x`, reversed, and `6 = n - (0 + 1) * 4`. Tile 2 of `out` has only two
# elements, `x[1], x[0]`; the "mirrored tile" `-2 ... 1` starts before `x`.
# </details>
#
# <details><summary>Hint 2 — Triton: the tile as rows of 16 bytes</summary>
#
# With `r = tl.arange(0, BLOCK_SIZE // PACK)[:, None]` and `c = tl.arange(0, PACK)[None, :]`,
# `offs = pid * BLOCK_SIZE + r * PACK + c` is this program's tile of `out` as a
# `BLOCK_SIZE // PACK × PACK` block: row `r` is 16 contiguous bytes. Row `r` of `out` is, read
# backwards, the 16 bytes of `x` that end where the mirrored tile's row `r - 1` begins:
# `src = n_elements - pid * BLOCK_SIZE - (r + 1) * PACK + c`, increasing along each row. The
# only ones to leave out are those below 0 (the last tile): a mask `src >= 0` on the load.
# </details>
#
# <details><summary>Hint 3 — Triton: turn each row around</summary>
#
# `tl.flip(block, 1)` reverses the block along dimension 1, the `PACK` elements of a row, all in
# one thread's registers. Element `[r, c]` of the flipped block is loaded element
# `[r, PACK - 1 - c]`, i.e. `x[n - 1 - (pid * BLOCK_SIZE + r * PACK + c)]`: exactly
# `out[offs[r, c]]`. Store it at `offs`, masked with `offs < n_elements`: the masked-off loads
# of the last tile land exactly on the masked-off stores. (`tl.flip(block, 0)` of a 1-D tile
# gives the same values, far more slowly: see above. Both sides are 16 bytes wide when `n` is
# a multiple of 16: Triton compiles a kernel apart for integer arguments divisible by 16, and
# sees that every row of `src` starts on a 16-byte boundary.)
# </details>
#
# <details><summary>Hint 4 — CUDA: which chunks of x make chunk i of out?</summary>
#
# Chunk `i` of `out` (elements `i * PACK ... i * PACK + PACK - 1`) needs
# `x[n - (i + 1) * PACK ... n - 1 - i * PACK]`. Write `r = n % PACK` and
# `q = n / PACK - 1 - i`: that range is `q * PACK + r ... q * PACK + r + PACK - 1`, so it starts
# `r` elements into chunk `q` of `x` and runs `r` elements into chunk `q + 1`. When `r` is 0,
# chunk `q` alone. `r` is the same for every thread: no thread waits on another's branch.
# </details>
#
# <details><summary>Hint 5 — CUDA: two chunks side by side</summary>
#
# Load chunks `q` and `q + 1` into a local `uint4 buf[2]` and look at it through
# `const T *src = reinterpret_cast<const T *>(buf)`: `2 * PACK` elements in a row. Then
# `out`'s element `k` of the chunk is `src[r + PACK - 1 - k]`. Fill a `uint4` with those and
# store it at `reinterpret_cast<uint4 *>(out)[i]`.
# </details>
#
# <details><summary>Hint 6 — CUDA: the two ends</summary>
#
# Chunk `q + 1` may be `x`'s last, partial chunk (for `i = 0`, when `r > 0`): a `uint4` load
# there reads past the end of `x`. Load its `r` elements one by one instead. And `out`'s last
# `r` elements, after its whole chunks, are `x`'s first `r` reversed: the first `r` threads of
# the grid do one each, `out[t] = x[n - 1 - t]`, guarded by `t < n`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "flip_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def flip_kernel(
    x_ptr,  # input: float32, float16 or bfloat16
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program (a power of 2)
    PACK: tl.constexpr,  # elements per 16 bytes: 4 (float32) or 8 (16-bit)
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    # This program's tile of out as rows of PACK elements (16 bytes each).
    r = tl.arange(0, BLOCK_SIZE // PACK)[:, None]
    c = tl.arange(0, PACK)[None, :]
    offs = pid * BLOCK_SIZE + r * PACK + c
    # Row r's 16 bytes of x, read forwards: the rows of the mirrored tile in mirrored order,
    # by address alone. Below 0 only in the last tile.
    src = n_elements - pid * BLOCK_SIZE - (r + 1) * PACK + c
    x = tl.load(x_ptr + src, mask=src >= 0)
    # flip(x, 1)[r, c] = x[n - 1 - offs[r, c]] = out[offs[r, c]]: each row turned around in
    # its thread's registers. The masked-off loads (src < 0) are the masked-off stores.
    tl.store(out_ptr + offs, tl.flip(x, 1), mask=offs < n_elements)
    ### END SOLUTION


def flip_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x reversed, one program per BLOCK_SIZE elements; float32, float16 or bfloat16."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    n = out.numel()
    PACK = 16 // out.element_size()  # elements per 16 bytes
    BLOCK_SIZE = 256 * PACK  # 4 KiB per program: 256 rows of 16 bytes
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    flip_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE, PACK=PACK)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "flip_cu", "locked": false, "schema_version": 3, "solution": true}
FLIP_CU = r"""
// out = x reversed, for n elements of T: unsigned int (4-byte elements) or unsigned short
// (2-byte elements). The kernels below call it with their own T.
template <class T>
__device__ __forceinline__ void reverse(const T *__restrict__ x,  // input
                                        T *__restrict__ out,      // output, same length
                                        int n)                    // number of elements
{
    /// BEGIN SOLUTION
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;  // whole chunks of out (and of x)
    int r = n % PACK;         // the tail's length: how far x's chunks are shifted from out's
    if (i < n_chunks) {
        // out's chunk i is x[q * PACK + r ... q * PACK + r + PACK - 1] reversed: the last
        // PACK - r elements of x's chunk q, then the first r of chunk q + 1.
        int q = n_chunks - 1 - i;
        uint4 c;
        T *ys = reinterpret_cast<T *>(&c);
        if (r == 0) {  // x's chunk q alone: every index below is a constant
            uint4 v = reinterpret_cast<const uint4 *>(x)[q];
            const T *src = reinterpret_cast<const T *>(&v);
#pragma unroll
            for (int k = 0; k < PACK; ++k) ys[k] = src[PACK - 1 - k];
        } else {
            // src[r + ...] is an index known only at run time: the compiler keeps buf in
            // (slower) local memory, which is why r == 0 has its own branch.
            uint4 buf[2];  // x's chunks q and q + 1, side by side
            buf[0] = reinterpret_cast<const uint4 *>(x)[q];
            if (q + 1 < n_chunks) {
                buf[1] = reinterpret_cast<const uint4 *>(x)[q + 1];
            } else {  // x's partial last chunk: a uint4 would read past the end of x
                T *part = reinterpret_cast<T *>(&buf[1]);
                for (int k = 0; k < r; ++k) part[k] = x[(q + 1) * PACK + k];
            }
            const T *src = reinterpret_cast<const T *>(buf);
#pragma unroll
            for (int k = 0; k < PACK; ++k) ys[k] = src[r + PACK - 1 - k];
        }
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;  // out's last r elements are x's first r, reversed
    if (tail < n) {  // only the first n % PACK threads have one
        out[tail] = x[n - 1 - tail];
    }
    /// END SOLUTION
}

// One kernel per element size; extern "C" keeps the names unmangled for get_function.
extern "C" __global__ void flip_kernel_b32(const unsigned int *__restrict__ x,
                                              unsigned int *__restrict__ out, int n)
{
    reverse(x, out, n);
}

extern "C" __global__ void flip_kernel_b16(const unsigned short *__restrict__ x,
                                              unsigned short *__restrict__ out, int n)
{
    reverse(x, out, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "flip_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# (no_extern_c: the template needs C++ linkage; each kernel is extern "C" itself.)
flip_module_cu = SourceModule(FLIP_CU, no_extern_c=True)
flip_kernels_cu = {  # by element size: the kernel never looks at a value
    4: flip_module_cu.get_function("flip_kernel_b32"),
    2: flip_module_cu.get_function("flip_kernel_b16"),
}


def flip_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x reversed with flip_kernels_cu[x.element_size()], one thread per 16-byte chunk.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    # A uint4 load must start on a 16-byte boundary: fresh torch tensors do, a view may not.
    assert x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, \
        "uint4 loads need 16-byte aligned tensors"
    n = out.numel()
    pack = 16 // out.element_size()  # elements per thread: 4 or 8
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)  # at least one block, for the tail
    flip_kernels_cu[out.element_size()](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()),
                                           np.int32(n), block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time flip
#
# Each check runs your launcher in float32, float16 and bfloat16 on a few sizes (1, a multiple
# of the 16-byte chunk that is not a multiple of a block, a tail of 3 after several blocks) and
# compares with `torch.flip`, element for element. On a GPU, `bench` times your launcher
# against torch from L2-resident sizes to 2^28 elements; without one it says "skipped: needs a
# GPU".

# %% nbgrader={"grade": true, "grade_id": "test_flip_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", flip_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", flip_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_flip_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", flip_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", flip_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_flip_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", flip_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", flip_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_flip_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", flip_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", flip_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 2 — flip_inplace: reverse an array in place
#
# The same result as `flip`, without a second buffer: reverse `out` where it lies. The checks
# hand every launcher its inputs and its outputs apart, so `flip_inplace_triton(x, out)` and
# `flip_inplace_cuda(x, out)` first copy `x` into `out` (`out.copy_(x)`, which torch runs on the
# device), then reverse `out` **in place, with one launch** of `n // 2` threads (in Triton:
# programs over blocks of pairs). Thread `i < n // 2` **swaps** `out[i]` and `out[n - 1 - i]`;
# when `n` is odd, the middle element `out[n // 2]` is its own mirror and stays.
#
# Why pairs, and why not the obvious kernel? A thread that reads an element another thread
# writes in the same launch reads whichever version happens to be there: the threads of a grid
# run in no order you can count on. `out[i] = out[n - 1 - i]` with `n` threads reads and writes
# the same array: thread `i` overwrites `out[i]`, and thread `n - 1 - i` needs that very value
# (`out[n - 1 - i] = out[i]`). Whichever of the two runs second copies back what the first
# wrote, and the original of one end is lost: the array comes out a palindrome, one half
# right and the other half its mirror image, and which half is right depends on the order the
# threads ran. With pairs, one thread owns both ends of its pair: it reads both before it writes
# either, and no other thread reads or writes them. The swaps are independent: any order
# gives the same result.
#
# <details><summary>Hint 1 — what goes wrong with n threads</summary>
#
# Take `n = 4`, `out = [a, b, c, d]`, `out[i] = out[3 - i]` per thread. Threads 0, 1, 2, 3 in
# that order: `[d, b, c, d]`, `[d, c, c, d]`, then thread 2 reads `out[1]`, already `c`:
# `[d, c, c, d]`, and thread 3 reads `out[0]`, already `d`: `[d, c, c, d]`. In the order
# 3, 2, 1, 0: `[a, b, c, a]`, `[a, b, b, a]`, `[a, b, b, a]`, `[a, b, b, a]`. Two wrong answers,
# and not the same one: on the CPU the grader runs your kernel under both orders and calls
# that a race. On a GPU, thousands of threads in flight give some mixture of the two, or at a
# small size, by luck, the right answer (every load before any store): a race need not show.
# </details>
#
# <details><summary>Hint 2 — and two launches, or a mirrored tile per program?</summary>
#
# `flip`'s kernel pointed at `out` for both arguments reads the mirrored tile and writes its
# own tile: program 0 overwrites the first tile with the last one before the last program has
# read the first tile, so the last tile gets the new values back (the Triton interpreter runs
# programs one by one, so you see it at once; a GPU loses some tiles). Two launches over the
# same tiles (first the front from the back, then the back from the front) do not help either:
# the first has overwritten the front before the second reads it. Every element must be read
# before anything overwrites it, and only a thread that holds both ends can promise that.
# </details>
#
# <details><summary>Hint 3 — Triton: a block of pairs</summary>
#
# With `half = n_elements // 2`, program `pid` takes the pairs whose front ends are `flip`'s
# tile of rows, `lo = pid * BLOCK_SIZE + r * PACK + c` (masked `lo < half`). Their other ends,
# each row read forwards, are `flip`'s mirrored rows
# `hi = n_elements - pid * BLOCK_SIZE - (r + 1) * PACK + c`, masked with
# `hi >= n_elements - half`: element `[r, c]` of `hi` is the mirror of element
# `[r, PACK - 1 - c]` of `lo`. Load both blocks, then store `tl.flip(·, 1)` of the `hi` block at
# `lo` and of the `lo` block at `hi`. Both loads come before both stores: the program holds
# every element it overwrites.
# </details>
#
# <details><summary>Hint 4 — the middle, and n = 1</summary>
#
# When `n` is odd, the pairs are `0 ... n // 2 - 1` and their mirrors `n - 1 ... n - n // 2`:
# the second half starts at `n - n // 2 = n // 2 + 1`, not at `n // 2`. Nobody touches the
# middle element, and it is already right (the copy put it there). For `n = 1` there is no pair
# at all, yet the launcher must still launch its kernel (the checks want one launch): a grid
# of at least one program (block) whose threads find nothing to do.
# </details>
#
# <details><summary>Hint 5 — CUDA: one pair per thread</summary>
#
# `i = blockIdx.x * blockDim.x + threadIdx.x`; if `i < n / 2`, read `T a = out[i]` and
# `T b = out[n - 1 - i]`, then write `out[i] = b` and `out[n - 1 - i] = a`. Neighbouring threads
# touch neighbouring elements at both ends (the far end downwards), so both sides coalesce.
# Correct, and in 16-bit about 70% of the copy roof: no access is wider than 2 bytes.
# </details>
#
# <details><summary>Hint 6 — CUDA: 16 bytes at each end</summary>
#
# When `PACK` divides `n`, the front's chunk `t` (elements `t * PACK ...`) mirrors the back's
# chunk `n / PACK - 1 - t`, also on a 16-byte boundary: one thread loads both `uint4`s, turns
# each around in registers (as `flip` does) and stores each at the other's place. The chunks
# cover `n / 2 / PACK` chunks of pairs; the fewer than `PACK` pairs left around the middle go
# through Hint 5's loop, one per thread after the chunk threads (`i = chunks * PACK + t`). When
# `PACK` does not divide `n`, no chunk lines up with its mirror: make `chunks` 0 and let every
# pair go through Hint 5. The launcher's grid then covers `pairs // pack + pairs % pack`
# threads, or `pairs`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "flip_inplace_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def flip_inplace_kernel(
    out_ptr,  # the array to reverse in place: float32, float16 or bfloat16
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # pairs per program (a power of 2)
    PACK: tl.constexpr,  # elements per 16 bytes: 4 (float32) or 8 (16-bit)
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    half = n_elements // 2  # the pairs; the middle of an odd n stays where it is
    r = tl.arange(0, BLOCK_SIZE // PACK)[:, None]
    c = tl.arange(0, PACK)[None, :]
    lo = pid * BLOCK_SIZE + r * PACK + c  # this program's front ends, rows of 16 bytes
    # Their other ends, each row read forwards: flip's mirrored rows, element [r, c] the
    # mirror of lo's element [r, PACK - 1 - c].
    hi = n_elements - pid * BLOCK_SIZE - (r + 1) * PACK + c
    lo_mask = lo < half
    hi_mask = hi >= n_elements - half
    a = tl.load(out_ptr + lo, mask=lo_mask)
    b = tl.load(out_ptr + hi, mask=hi_mask)
    # Both ends are in registers before either is overwritten; no other program touches them.
    tl.store(out_ptr + lo, tl.flip(b, 1), mask=lo_mask)
    tl.store(out_ptr + hi, tl.flip(a, 1), mask=hi_mask)
    ### END SOLUTION


def flip_inplace_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x, then out reversed in place: one program per BLOCK_SIZE pairs.

    First out.copy_(x) (torch copies on the device), then one launch of flip_inplace_kernel on
    out alone, with at least one program.
    """
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    out.copy_(x)
    n = out.numel()
    PACK = 16 // out.element_size()  # elements per 16 bytes
    BLOCK_SIZE = 256 * PACK  # pairs per program: 256 rows of 16 bytes at each end
    grid = (max(triton.cdiv(n // 2, BLOCK_SIZE), 1),)  # one program even without a pair
    flip_inplace_kernel[grid](out, n, BLOCK_SIZE=BLOCK_SIZE, PACK=PACK)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "flip_inplace_cu", "locked": false, "schema_version": 3, "solution": true}
FLIP_INPLACE_CU = r"""
// out reversed in place, for n elements of T (unsigned int or unsigned short): the pairs
// (out[i], out[n - 1 - i]) for i < n / 2 swapped, each by one thread (16 bytes at a time
// where the two ends line up).
template <class T>
__device__ __forceinline__ void swap_ends(T *__restrict__ out,  // reversed in place
                                          int n)                // number of elements
{
    /// BEGIN SOLUTION
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    // When PACK divides n, the mirror of the front's chunk t is the back's chunk
    // n / PACK - 1 - t, on a 16-byte boundary too: thread t swaps the two chunks, each
    // turned around in registers. Otherwise no chunk lines up with its mirror: no chunks.
    int chunks = n % PACK == 0 ? n / 2 / PACK : 0;
    if (t < chunks) {
        uint4 *v = reinterpret_cast<uint4 *>(out);
        int u = n / PACK - 1 - t;
        uint4 front = v[t], back = v[u];  // both read before either is written
        uint4 new_front, new_back;
        const T *fs = reinterpret_cast<const T *>(&front);
        const T *bs = reinterpret_cast<const T *>(&back);
        T *nf = reinterpret_cast<T *>(&new_front);
        T *nb = reinterpret_cast<T *>(&new_back);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            nf[k] = bs[PACK - 1 - k];
            nb[k] = fs[PACK - 1 - k];
        }
        v[t] = new_front;
        v[u] = new_back;
    }
    // The pairs between the chunks (fewer than PACK, around the middle), or every pair when
    // there are no chunks: one per thread, one element at a time.
    int i = chunks * PACK + t;
    if (i < n / 2) {  // the middle of an odd n is its own mirror: nobody moves it
        int j = n - 1 - i;
        T a = out[i];  // both ends read before either is written: this thread owns them
        T b = out[j];
        out[i] = b;
        out[j] = a;
    }
    /// END SOLUTION
}

extern "C" __global__ void flip_inplace_kernel_b32(unsigned int *__restrict__ out, int n)
{
    swap_ends(out, n);
}

extern "C" __global__ void flip_inplace_kernel_b16(unsigned short *__restrict__ out, int n)
{
    swap_ends(out, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "flip_inplace_cuda", "locked": false, "schema_version": 3, "solution": true}
flip_inplace_module_cu = SourceModule(FLIP_INPLACE_CU, no_extern_c=True)
flip_inplace_kernels_cu = {
    4: flip_inplace_module_cu.get_function("flip_inplace_kernel_b32"),
    2: flip_inplace_module_cu.get_function("flip_inplace_kernel_b16"),
}


def flip_inplace_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x, then out reversed in place with flip_inplace_kernels_cu[out.element_size()],
    one thread per pair of 16-byte chunks (or per pair of elements).

    First out.copy_(x) (torch copies on the device), then one launch on out alone:
    np.uintp(out.data_ptr()), np.int32(n), block=(threads, 1, 1), grid=(blocks, 1), with at
    least one block.
    """
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    # uint4 accesses must start on a 16-byte boundary: fresh torch tensors do, a view may not.
    assert out.data_ptr() % 16 == 0, "uint4 accesses need a 16-byte aligned tensor"
    out.copy_(x)
    n = out.numel()
    pack = 16 // out.element_size()  # elements per 16-byte chunk
    pairs = n // 2
    # One thread per chunk pair and per pair left between the chunks; one per pair when pack
    # does not divide n (no chunks).
    work = pairs // pack + pairs % pack if n % pack == 0 else pairs
    threads = 256
    blocks = max(triton.cdiv(work, threads), 1)  # one block even without a pair
    flip_inplace_kernels_cu[out.element_size()](np.uintp(out.data_ptr()), np.int32(n),
                                                block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time flip_inplace
#
# The sizes are `flip`'s: one element (no pair), even and odd sizes, several blocks of pairs.
# `bench` counts the copy and the swap (`4 * n` elements moved) against torch's `x.flip(0)`.

# %% nbgrader={"grade": true, "grade_id": "test_flip_inplace_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", flip_inplace_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", flip_inplace_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_flip_inplace_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", flip_inplace_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", flip_inplace_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_flip_inplace_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", flip_inplace_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", flip_inplace_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_flip_inplace_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", flip_inplace_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", flip_inplace_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 3 — interleave
#
# `out[2i] = a[i]` and `out[2i + 1] = b[i]` for `n` elements each: `out` has `2n` elements,
# the pairs `(a[i], b[i])` one after the other. One pair per thread would load 4 bytes (or 2)
# from each input and store 8 (or 4): narrow on both sides. Take a block of each input, and
# write the block of pairs they make.
#
# <details><summary>Hint 1 — what one program writes</summary>
#
# A program that reads `a[pid * BLOCK_SIZE ... + BLOCK_SIZE - 1]` and the same elements of `b`
# writes `out[2 * pid * BLOCK_SIZE ... + 2 * BLOCK_SIZE - 1]`: one contiguous block twice as
# long. Each side is a plain contiguous access: the mixing happens between load and store.
# </details>
#
# <details><summary>Hint 2 — Triton: the pairs</summary>
#
# `tl.interleave(a, b)` of two blocks of `BLOCK_SIZE` is the block `[a0, b0, a1, b1, ...]` of
# `2 * BLOCK_SIZE` (the same as `tl.reshape(tl.join(a, b), [2 * BLOCK_SIZE])`: `tl.join` makes
# the `[BLOCK_SIZE, 2]` block of pairs).
# </details>
#
# <details><summary>Hint 3 — Triton: the masks</summary>
#
# The loads of `a` and `b` are masked with `offs < n_elements`. The store has offsets
# `2 * pid * BLOCK_SIZE + tl.arange(0, 2 * BLOCK_SIZE)` and its own mask, `< 2 * n_elements`:
# the pair of a masked-off element is masked off too.
# </details>
#
# <details><summary>Hint 4 — CUDA: 16 bytes of each, 32 bytes of pairs</summary>
#
# Thread `i` loads chunk `i` of `a` and chunk `i` of `b` (`PACK` elements each) and writes the
# `2 * PACK` elements of `out` from `2 * i * PACK` on: `out`'s chunks `2i` and `2i + 1`. Build
# them in a local `uint4 o[2]` seen through a `T *`: `ys[2 * k] = as[k]`, `ys[2 * k + 1] =
# bs[k]`.
# </details>
#
# <details><summary>Hint 5 — CUDA: the tail</summary>
#
# The `n % PACK` elements after the last whole chunk: thread `t` (of the first few) takes
# element `e = (n / PACK) * PACK + t`, if `e < n`, and writes `out[2 * e]` and
# `out[2 * e + 1]`. The launcher is flip's, with one more input.
# </details>

# %% nbgrader={"grade": false, "grade_id": "interleave_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def interleave_kernel(
    a_ptr,  # first input: float32, float16 or bfloat16
    b_ptr,  # second input, same dtype and length
    out_ptr,  # output: 2 * n_elements of the same dtype
    n_elements,  # elements of a (and of b)
    BLOCK_SIZE: tl.constexpr,  # elements of a (and of b) per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    pairs = tl.interleave(a, b)  # [a0, b0, a1, b1, ...]: 2 * BLOCK_SIZE elements
    out_offs = 2 * pid * BLOCK_SIZE + tl.arange(0, 2 * BLOCK_SIZE)
    tl.store(out_ptr + out_offs, pairs, mask=out_offs < 2 * n_elements)
    ### END SOLUTION


def interleave_triton(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    """out[2i] = a[i], out[2i + 1] = b[i], one program per BLOCK_SIZE pairs."""
    ### BEGIN SOLUTION
    assert a.shape == b.shape, f"shapes differ: {a.shape}, {b.shape}"
    assert out.numel() == 2 * a.numel(), f"out has {out.numel()} elements, not 2 * {a.numel()}"
    assert a.dtype == b.dtype == out.dtype, f"dtypes differ: {a.dtype}, {b.dtype}, {out.dtype}"
    n = a.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    interleave_kernel[grid](a, b, out, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "interleave_cu", "locked": false, "schema_version": 3, "solution": true}
INTERLEAVE_CU = r"""
// out[2i] = a[i], out[2i + 1] = b[i] for n elements of T each (unsigned int or unsigned short).
template <class T>
__device__ __forceinline__ void interleave(const T *__restrict__ a,  // first input
                                           const T *__restrict__ b,  // second input
                                           T *__restrict__ out,      // output, 2 * n elements
                                           int n)                    // elements of a (and b)
{
    /// BEGIN SOLUTION
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {  // 16 bytes of a and of b in, 32 bytes of pairs out
        uint4 va = reinterpret_cast<const uint4 *>(a)[i];
        uint4 vb = reinterpret_cast<const uint4 *>(b)[i];
        const T *as = reinterpret_cast<const T *>(&va);
        const T *bs = reinterpret_cast<const T *>(&vb);
        uint4 o[2];
        T *ys = reinterpret_cast<T *>(o);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            ys[2 * k] = as[k];
            ys[2 * k + 1] = bs[k];
        }
        reinterpret_cast<uint4 *>(out)[2 * i] = o[0];
        reinterpret_cast<uint4 *>(out)[2 * i + 1] = o[1];
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {  // only the first n % PACK threads have a leftover pair
        out[2 * tail] = a[tail];
        out[2 * tail + 1] = b[tail];
    }
    /// END SOLUTION
}

extern "C" __global__ void interleave_kernel_b32(const unsigned int *__restrict__ a,
                                                 const unsigned int *__restrict__ b,
                                                 unsigned int *__restrict__ out, int n)
{
    interleave(a, b, out, n);
}

extern "C" __global__ void interleave_kernel_b16(const unsigned short *__restrict__ a,
                                                 const unsigned short *__restrict__ b,
                                                 unsigned short *__restrict__ out, int n)
{
    interleave(a, b, out, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "interleave_cuda", "locked": false, "schema_version": 3, "solution": true}
interleave_module_cu = SourceModule(INTERLEAVE_CU, no_extern_c=True)
interleave_kernels_cu = {
    4: interleave_module_cu.get_function("interleave_kernel_b32"),
    2: interleave_module_cu.get_function("interleave_kernel_b16"),
}


def interleave_cuda(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    """out[2i] = a[i], out[2i + 1] = b[i] with interleave_kernels_cu[a.element_size()]."""
    ### BEGIN SOLUTION
    assert a.shape == b.shape, f"shapes differ: {a.shape}, {b.shape}"
    assert out.numel() == 2 * a.numel(), f"out has {out.numel()} elements, not 2 * {a.numel()}"
    assert a.dtype == b.dtype == out.dtype, f"dtypes differ: {a.dtype}, {b.dtype}, {out.dtype}"
    assert all(t.data_ptr() % 16 == 0 for t in (a, b, out)), \
        "uint4 loads need 16-byte aligned tensors"
    n = a.numel()
    pack = 16 // a.element_size()
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)
    interleave_kernels_cu[a.element_size()](np.uintp(a.data_ptr()), np.uintp(b.data_ptr()),
                                            np.uintp(out.data_ptr()), np.int32(n),
                                            block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time interleave

# %% nbgrader={"grade": true, "grade_id": "test_interleave_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", interleave_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", interleave_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_interleave_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", interleave_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", interleave_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_interleave_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", interleave_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", interleave_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_interleave_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", interleave_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", interleave_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 4 — deinterleave
#
# The inverse: `a[i] = x[2i]` and `b[i] = x[2i + 1]`, for `x` of `2n` elements and two outputs
# of `n`. Reading `x[2i]` and `x[2i + 1]` per thread is narrow again; read a block of pairs and
# write a block of each output.
#
# <details><summary>Hint 1 — what one program reads</summary>
#
# The program that writes `a[pid * BLOCK_SIZE ... + BLOCK_SIZE - 1]` (and the same elements of
# `b`) reads `x[2 * pid * BLOCK_SIZE ... + 2 * BLOCK_SIZE - 1]`: one contiguous block.
# </details>
#
# <details><summary>Hint 2 — Triton: from pairs to columns</summary>
#
# `tl.reshape(x, [BLOCK_SIZE, 2])` sees the loaded block as rows of pairs; `tl.split` of a block
# whose last dimension is 2 returns its two columns: `a, b = tl.split(...)`, each of
# `BLOCK_SIZE` elements.
# </details>
#
# <details><summary>Hint 3 — Triton: the masks</summary>
#
# The load is masked with `< 2 * n_elements`, the two stores with `offs < n_elements` where
# `offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`.
# </details>
#
# <details><summary>Hint 4 — CUDA: 32 bytes of pairs in, 16 bytes of each out</summary>
#
# Thread `i` loads `x`'s chunks `2i` and `2i + 1` (`PACK` pairs) into a local `uint4 v[2]`, and
# through a `const T *` to it fills one `uint4` for `a` with the even elements and one for `b`
# with the odd ones, stored at chunk `i` of each. Every 16-byte access starts at a multiple of
# `PACK` elements: at `x + 1`, the odd elements' "first chunk" is not 16-byte aligned, and a
# GPU refuses a `uint4` load there (misaligned address).
# </details>
#
# <details><summary>Hint 5 — CUDA: the tail</summary>
#
# As in interleave: element `e = (n / PACK) * PACK + t` of each output, for the first threads
# of the grid, `a[e] = x[2 * e]`, `b[e] = x[2 * e + 1]`, guarded by `e < n`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "deinterleave_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def deinterleave_kernel(
    x_ptr,  # input: 2 * n_elements of float32, float16 or bfloat16
    a_ptr,  # first output: the even elements of x
    b_ptr,  # second output: the odd elements of x
    n_elements,  # elements of a (and of b)
    BLOCK_SIZE: tl.constexpr,  # elements of a (and of b) per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    x_offs = 2 * pid * BLOCK_SIZE + tl.arange(0, 2 * BLOCK_SIZE)
    x = tl.load(x_ptr + x_offs, mask=x_offs < 2 * n_elements)
    a, b = tl.split(tl.reshape(x, [BLOCK_SIZE, 2]))  # the columns of the pairs
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(a_ptr + offs, a, mask=mask)
    tl.store(b_ptr + offs, b, mask=mask)
    ### END SOLUTION


def deinterleave_triton(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> None:
    """a[i] = x[2i], b[i] = x[2i + 1], one program per BLOCK_SIZE pairs."""
    ### BEGIN SOLUTION
    assert a.shape == b.shape, f"shapes differ: {a.shape}, {b.shape}"
    assert x.numel() == 2 * a.numel(), f"x has {x.numel()} elements, not 2 * {a.numel()}"
    assert x.dtype == a.dtype == b.dtype, f"dtypes differ: {x.dtype}, {a.dtype}, {b.dtype}"
    n = a.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    deinterleave_kernel[grid](x, a, b, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "deinterleave_cu", "locked": false, "schema_version": 3, "solution": true}
DEINTERLEAVE_CU = r"""
// a[i] = x[2i], b[i] = x[2i + 1] for n elements of T each (unsigned int or unsigned short).
template <class T>
__device__ __forceinline__ void deinterleave(const T *__restrict__ x,  // input, 2 * n elements
                                             T *__restrict__ a,        // even elements of x
                                             T *__restrict__ b,        // odd elements of x
                                             int n)                    // elements of a (and b)
{
    /// BEGIN SOLUTION
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {  // 32 bytes of pairs in, 16 bytes of a and of b out
        uint4 v[2];
        v[0] = reinterpret_cast<const uint4 *>(x)[2 * i];
        v[1] = reinterpret_cast<const uint4 *>(x)[2 * i + 1];
        const T *xs = reinterpret_cast<const T *>(v);
        uint4 va, vb;
        T *as = reinterpret_cast<T *>(&va);
        T *bs = reinterpret_cast<T *>(&vb);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            as[k] = xs[2 * k];
            bs[k] = xs[2 * k + 1];
        }
        reinterpret_cast<uint4 *>(a)[i] = va;
        reinterpret_cast<uint4 *>(b)[i] = vb;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {  // only the first n % PACK threads have a leftover pair
        a[tail] = x[2 * tail];
        b[tail] = x[2 * tail + 1];
    }
    /// END SOLUTION
}

extern "C" __global__ void deinterleave_kernel_b32(const unsigned int *__restrict__ x,
                                                   unsigned int *__restrict__ a,
                                                   unsigned int *__restrict__ b, int n)
{
    deinterleave(x, a, b, n);
}

extern "C" __global__ void deinterleave_kernel_b16(const unsigned short *__restrict__ x,
                                                   unsigned short *__restrict__ a,
                                                   unsigned short *__restrict__ b, int n)
{
    deinterleave(x, a, b, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "deinterleave_cuda", "locked": false, "schema_version": 3, "solution": true}
deinterleave_module_cu = SourceModule(DEINTERLEAVE_CU, no_extern_c=True)
deinterleave_kernels_cu = {
    4: deinterleave_module_cu.get_function("deinterleave_kernel_b32"),
    2: deinterleave_module_cu.get_function("deinterleave_kernel_b16"),
}


def deinterleave_cuda(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> None:
    """a[i] = x[2i], b[i] = x[2i + 1] with deinterleave_kernels_cu[x.element_size()]."""
    ### BEGIN SOLUTION
    assert a.shape == b.shape, f"shapes differ: {a.shape}, {b.shape}"
    assert x.numel() == 2 * a.numel(), f"x has {x.numel()} elements, not 2 * {a.numel()}"
    assert x.dtype == a.dtype == b.dtype, f"dtypes differ: {x.dtype}, {a.dtype}, {b.dtype}"
    assert all(t.data_ptr() % 16 == 0 for t in (x, a, b)), \
        "uint4 loads need 16-byte aligned tensors"
    n = a.numel()
    pack = 16 // x.element_size()
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)
    deinterleave_kernels_cu[x.element_size()](np.uintp(x.data_ptr()), np.uintp(a.data_ptr()),
                                              np.uintp(b.data_ptr()), np.int32(n),
                                              block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time deinterleave

# %% nbgrader={"grade": true, "grade_id": "test_deinterleave_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", deinterleave_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", deinterleave_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_deinterleave_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", deinterleave_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", deinterleave_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_deinterleave_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", deinterleave_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", deinterleave_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_deinterleave_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", deinterleave_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", deinterleave_cuda, graded=True)
### END HIDDEN TESTS
