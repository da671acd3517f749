"""backends.cuda: our own kernels (tests/cuda_kernels/*.cu) against numpy/torch, at tail sizes.

Every correctness test runs on the CPU backend and, where a GPU is present, through pycuda
(marked gpu; without CUDA it is skipped with "needs a GPU"). The negative controls check that
the CPU backend catches what a GPU would hide or crash on: a missing barrier, an
out-of-bounds read, an oversized block, a syntax error, a Python int argument.
"""

from __future__ import annotations

import concurrent.futures
import math
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import grader.backends.cuda as gc
from grader.backends.cuda import CompileError, KernelNotFound, LaunchError, SourceModule

KERNELS = Path(__file__).parent / "cuda_kernels"
SIZES = [1, 127, 129, 1000, 4097]
BACKENDS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.fixture(scope="session", autouse=True)
def _fresh_cache(tmp_path_factory):
    """A cache of our own: the compile path runs, and nothing lands in ~/.cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TCLAB_CACHE", str(tmp_path_factory.mktemp("tclab-cache")))
        mp.delenv("TCLAB_CUDA_CHECKED", raising=False)
        mp.delenv("TCLAB_CUDA_SCHEDULE", raising=False)
        yield


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    if request.param == "gpu" and not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    monkeypatch.setenv("TCLAB_DEVICE", request.param)
    return request.param


@pytest.fixture
def cpu(monkeypatch):
    monkeypatch.setenv("TCLAB_DEVICE", "cpu")
    return "cpu"


_modules: dict = {}


def load(name: str, backend: str):
    """tests/cuda_kernels/<name>.cu compiled once per backend ("// tclab: no_extern_c" in the
    file compiles it with no_extern_c=True)."""
    if (name, backend) not in _modules:
        src = (KERNELS / f"{name}.cu").read_text()
        _modules[name, backend] = SourceModule(src, no_extern_c="tclab: no_extern_c" in src)
    return _modules[name, backend]


def kernel(name: str, fn: str, backend: str):
    return load(name, backend).get_function(fn)


def dev(backend: str) -> str:
    return "cuda" if backend == "gpu" else "cpu"


def ptr(t: torch.Tensor) -> np.uintp:
    return np.uintp(t.data_ptr())


def cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def randn(*shape, backend: str, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dev(backend))


# ------------------------------------------------------------------ correctness, both backends


@pytest.mark.parametrize("n", SIZES + [4, 5, 6, 7])
def test_saxpy_float4_with_tail(backend, n):
    x, y = randn(n, backend=backend), randn(n, backend=backend, seed=1)
    out = torch.full((n,), float("nan"), device=dev(backend))
    threads = 128
    kernel("saxpy_float4", "saxpy_float4", backend)(
        ptr(x), ptr(y), ptr(out), np.float32(2.5), np.int32(n),
        block=(threads, 1, 1), grid=(cdiv(max(n // 4, 1), threads), 1))
    torch.testing.assert_close(out, 2.5 * x + y, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n", SIZES)
def test_reduce_shared_tree(backend, n):
    x = randn(n, backend=backend)
    partial = torch.zeros(cdiv(n, 512), device=dev(backend))
    kernel("reduce_shared", "reduce_sum", backend)(
        x, partial, np.int32(n), block=(256, 1, 1), grid=(partial.numel(), 1))
    expect = x.double().sum().item()
    assert partial.double().sum().item() == pytest.approx(expect, abs=1e-4 * math.sqrt(n))


@pytest.mark.parametrize("n", SIZES)
def test_warp_shuffle_reduction(backend, n):
    x = randn(n, backend=backend)
    total = torch.zeros(1, device=dev(backend))
    kernel("warp_reduce", "warp_reduce_sum", backend)(
        ptr(x), ptr(total), np.int32(n), block=(256, 1, 1), grid=(cdiv(n, 256), 1))
    assert total.item() == pytest.approx(x.double().sum().item(), abs=1e-4 * math.sqrt(n))


@pytest.mark.parametrize("n", SIZES)
def test_warp_xor_max_and_ballot(backend, n):
    x = randn(n, backend=backend)
    wmax = torch.empty(n, device=dev(backend))
    npos = torch.empty(n, dtype=torch.int32, device=dev(backend))
    kernel("warp_reduce", "warp_max_and_count", backend)(
        x, wmax, npos, np.int32(n), block=(64, 1, 1), grid=(cdiv(n, 64), 1))
    padded = torch.full((cdiv(n, 32) * 32,), float("-inf"))
    padded[:n] = x.cpu()
    warps = padded.view(-1, 32)
    expect_max = warps.max(dim=1).values.repeat_interleave(32)[:n]
    expect_pos = (warps > 0).sum(dim=1).to(torch.int32).repeat_interleave(32)[:n]
    torch.testing.assert_close(wmax.cpu(), expect_max)
    torch.testing.assert_close(npos.cpu(), expect_pos)


@pytest.mark.parametrize("n", SIZES)
def test_shuffle_width_and_down(backend, n):
    data = torch.arange(n, dtype=torch.int32, device=dev(backend)) * 7 + 3
    bcast = torch.empty_like(data)
    right = torch.empty_like(data)
    kernel("warp_reduce", "shuffle_patterns", backend)(
        data, bcast, right, np.int32(n), block=(64, 1, 1), grid=(cdiv(n, 64), 1))
    v = data.cpu().tolist()
    expect_b = [v[i & ~7] for i in range(n)]
    expect_r = [v[i] if i % 32 == 31 else (v[i + 1] if i + 1 < n else -1) for i in range(n)]
    assert bcast.cpu().tolist() == expect_b
    assert right.cpu().tolist() == expect_r


def _block_cumsum(x: torch.Tensor, block: int) -> torch.Tensor:
    n = x.numel()
    padded = torch.zeros(cdiv(n, block) * block, dtype=torch.int64)
    padded[:n] = x.cpu()
    return padded.view(-1, block).cumsum(dim=1).flatten()[:n].to(torch.int32)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("variant", ["block_scan_shfl", "block_scan_smem"])
def test_block_inclusive_scan(backend, n, variant):
    g = torch.Generator().manual_seed(n)
    x = torch.randint(-50, 50, (n,), generator=g, dtype=torch.int32).to(dev(backend))
    out = torch.empty_like(x)
    threads = 256
    shared = 2 * threads * 4 if variant == "block_scan_smem" else 0
    kernel("block_scan", variant, backend)(
        x, out, np.int32(n), block=(threads, 1, 1), grid=(cdiv(n, threads), 1), shared=shared)
    assert torch.equal(out.cpu(), _block_cumsum(x, threads))


@pytest.mark.parametrize("shared", [0, 1024])
def test_dynamic_shared_memory_past_what_the_launch_asked_for_faults(cpu, shared):
    """An extern __shared__ array has what the launch passes as shared=, as on a GPU: a launch
    that forgets shared= (or passes too little) fails with the byte and what was asked for,
    instead of quietly using the CPU backend's 227 KiB buffer."""
    n, threads = 4096, 1024
    x, out = torch.ones(n, dtype=torch.int32), torch.empty(n, dtype=torch.int32)
    fn = kernel("block_scan", "block_scan_smem", cpu)
    with pytest.raises(LaunchError, match=rf"(read|write) of dynamic shared memory at byte \d+, "
                       rf"past the {shared} bytes this launch asked for: .*shared=BYTES"):
        fn(x, out, np.int32(n), block=(threads, 1, 1), grid=(n // threads, 1), shared=shared)
    fn(x, out, np.int32(n), block=(threads, 1, 1), grid=(n // threads, 1),
       shared=2 * threads * 4)  # enough: the guard is gone again, the scan is right
    assert torch.equal(out, _block_cumsum(x, threads))


@pytest.mark.parametrize("rows,cols", [(1, 1), (127, 129), (129, 127), (1000, 33), (64, 64)])
def test_tiled_transpose_padded_shared(backend, rows, cols):
    x = randn(rows, cols, backend=backend)
    out = torch.full((cols, rows), float("nan"), device=dev(backend))
    kernel("transpose", "transpose_tiled", backend)(
        x, out, np.int32(rows), np.int32(cols), block=(32, 8, 1),
        grid=(cdiv(cols, 32), cdiv(rows, 32)))
    assert torch.equal(out, x.t())


@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 127), (5, 129), (2, 1000), (4, 4097)])
def test_row_softmax_dynamic_shared(backend, rows, cols):
    x = randn(rows, cols, backend=backend) * 10
    out = torch.empty_like(x)
    threads = 128
    kernel("softmax", "softmax_rows", backend)(
        x, out, np.int32(cols), block=(threads, 1, 1), grid=(rows, 1), shared=threads * 4)
    # rtol: the GPU's __expf is an approximation (2 ulp plus an error growing with |x|)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (127, 129, 33), (64, 64, 64), (17, 1000, 5)])
def test_tiled_matmul(backend, m, n, k):
    a, b = randn(m, k, backend=backend), randn(k, n, backend=backend, seed=1)
    c = torch.full((m, n), float("nan"), device=dev(backend))
    kernel("matmul", "matmul_tiled", backend)(
        a, b, c, np.int32(m), np.int32(n), np.int32(k), block=(16, 16, 1),
        grid=(cdiv(n, 16), cdiv(m, 16)))
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", SIZES + [100_000])
def test_atomic_histogram(backend, n):
    g = torch.Generator().manual_seed(n)
    data = torch.randint(0, 1 << 20, (n,), generator=g, dtype=torch.int32).to(dev(backend))
    bins = torch.zeros(64, dtype=torch.int32, device=dev(backend))  # unsigned in the kernel
    grid = min(cdiv(n, 256), 8)  # fewer blocks than needed: the grid-stride loop runs
    kernel("histogram", "histogram", backend)(
        data, bins, np.int32(n), block=(256, 1, 1), grid=(grid, 1))
    expect = torch.bincount(data.cpu().long() % 64, minlength=64).to(torch.int32)
    assert torch.equal(bins.cpu(), expect)


@pytest.mark.parametrize("n", [1, 1000, 100_000])
def test_float_atomics_across_blocks(backend, n):
    g = torch.Generator().manual_seed(n)
    data = torch.randint(0, 1 << 20, (n,), generator=g, dtype=torch.int32).to(dev(backend))
    weight = torch.rand(n, generator=g).to(dev(backend))
    sums = torch.zeros(64, device=dev(backend))
    max_bits = torch.zeros(1, dtype=torch.int32, device=dev(backend))
    kernel("histogram", "weighted_histogram", backend)(
        data, weight, sums, max_bits, np.int32(n), block=(128, 1, 1), grid=(16, 1))
    expect = torch.zeros(64, dtype=torch.float64).index_add_(
        0, data.cpu().long() % 64, weight.cpu().double())
    torch.testing.assert_close(sums.cpu().double(), expect, rtol=1e-5, atol=1e-4)
    assert max_bits.cpu().view(torch.float32).item() == weight.max().item()


def test_half_and_bfloat16_conversions_round_like_cuda(backend):
    specials = torch.tensor([0.0, -0.0, 1.0, 65504.0, 65520.0, 1e6, -1e6, 6e-8, 3e-8, 1e-8,
                             6.1e-5, 1.0009765625, 1.00048828125, 1.00146484375,
                             float("inf"), float("-inf"), float("nan"), 3.3895e38])
    g = torch.Generator().manual_seed(0)
    x = torch.cat([specials, torch.randn(4000, generator=g) * 10.0 ** torch.randint(
        -8, 6, (4000,), generator=g)]).to(dev(backend))
    n = x.numel()
    via_half, via_bf16 = torch.empty_like(x), torch.empty_like(x)
    kernel("half_bf16", "round_trip", backend)(
        x, via_half, via_bf16, np.int32(n), block=(256, 1, 1), grid=(cdiv(n, 256), 1))
    torch.testing.assert_close(via_half, x.half().float(), rtol=0, atol=0, equal_nan=True)
    torch.testing.assert_close(via_bf16, x.bfloat16().float(), rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("n", [1, 1000])
def test_half_storage_arithmetic(backend, n):
    x = randn(n, backend=backend).half()
    y = randn(n, backend=backend, seed=1).half()
    out = torch.empty_like(x)
    kernel("half_bf16", "haxpy", backend)(
        x, y, out, np.float32(0.5), np.int32(n), block=(128, 1, 1), grid=(cdiv(n, 128), 1))
    assert torch.equal(out, (0.5 * x.float() + y.float()).half())


def test_templates_namespaces_and_linkage(backend):
    x = torch.arange(1, 301, dtype=torch.float32, device=dev(backend))
    grid = (cdiv(300, 128), 1)
    mod = load("templates", backend)
    mod.get_function("_Z5scaleILi3EEvPfi")(x, np.int32(300), block=(128, 1, 1), grid=grid)
    mod.get_function("cube_all")(x, np.int32(300), block=(128, 1, 1), grid=grid)
    expect = (torch.arange(1, 301, dtype=torch.float64) * 3) ** 3
    torch.testing.assert_close(x.cpu().double(), expect, rtol=1e-6, atol=0)
    idx = torch.zeros(300, dtype=torch.int32, device=dev(backend))
    mod.get_function("add_index")(idx, np.int32(300), block=(128, 1, 1), grid=grid)
    assert idx.cpu().tolist() == list(range(300))
    with pytest.raises(KernelNotFound):
        mod.get_function("scale")  # C++ linkage: only the mangled name exists
    with pytest.raises(KernelNotFound):
        mod.get_function("no_such_kernel")


def test_functions_compiles_once_at_the_first_get_and_finds_each_name_once(backend, monkeypatch):
    """`functions(source)`, the references' kernel getter: nothing compiled until a kernel is
    asked for (the device may not be fixed at import), then one module for every name, and
    the same function object each time; a name the source lacks raises as get_function does."""
    built = []
    real = gc.SourceModule
    monkeypatch.setattr(gc, "SourceModule", lambda *a, **k: built.append(1) or real(*a, **k))
    source = (KERNELS / "templates.cu").read_text()
    get = gc.functions(source, no_extern_c=True)
    assert built == []
    assert get("cube_all") is get("cube_all") and get("add_index") is not None
    assert built == [1]
    with pytest.raises(KernelNotFound):
        get("no_such_kernel")


MIXED = r"""
extern __shared__ float reversed_buf[];  // at namespace scope, as older code writes it
__constant__ float coeff[2] = {2.0f, 3.0f};
struct Pair { float a; int b; };

__global__ void mixed(float *out, Pair p)
{
    volatile __shared__ float one[64];
    reversed_buf[threadIdx.x] = threadIdx.x * coeff[0];
    one[threadIdx.x] = 1.0f;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] =
        reversed_buf[blockDim.x - 1 - threadIdx.x] + p.a * p.b + one[0];
}
"""


def test_namespace_extern_shared_struct_argument_and_constant(backend):
    out = torch.zeros(128, device=dev(backend))
    pair = np.array([(1.5, 4)], dtype=[("a", np.float32), ("b", np.int32)])[0]
    SourceModule(MIXED).get_function("mixed")(out, pair, block=(64, 1, 1), grid=(2, 1),
                                              shared=64 * 4)
    expect = torch.tensor([(63 - t) * 2.0 + 6.0 + 1.0 for t in range(64)] * 2)
    assert torch.equal(out.cpu(), expect)


def test_three_dimensional_indices(backend):
    block, grid = (4, 3, 2), (3, 2, 2)
    per_block, blocks = 24, 12
    out = torch.full((4 * per_block * blocks,), -1, dtype=torch.int32, device=dev(backend))
    kernel("indexing", "thread_ids", backend)(out, block=block, grid=grid)
    got = out.cpu().view(blocks, per_block, 4)
    assert torch.equal(got[:, :, 0], torch.arange(per_block).repeat(blocks, 1).int())
    assert torch.equal(got[:, :, 1], torch.arange(blocks).view(-1, 1).repeat(1, per_block).int())
    assert (got[:, :, 2] == per_block).all() and (got[:, :, 3] == blocks).all()


@pytest.mark.parametrize("n", SIZES)
def test_syncthreads_count(backend, n):
    x = randn(n, backend=backend)
    counts = torch.empty(cdiv(n, 128), dtype=torch.int32, device=dev(backend))
    kernel("indexing", "count_positive", backend)(
        x, counts, np.int32(n), block=(128, 1, 1), grid=(counts.numel(), 1))
    padded = torch.zeros(counts.numel() * 128)
    padded[:n] = x.cpu()
    assert torch.equal(counts.cpu(), (padded.view(-1, 128) > 0).sum(dim=1).int())


# ------------------------------------------------------------------ negative controls


def test_missing_barrier_is_a_race_under_two_schedules(cpu):
    n = 1000
    x = torch.randn(n)
    partial = torch.zeros(cdiv(n, 512))
    bad = kernel("bad_reduce_nosync", "reduce_sum_nosync", cpu)
    result = gc.run_twice_and_compare(bad, ptr(x), ptr(partial), np.int32(n),
                                      block=(256, 1, 1), grid=(partial.numel(), 1))
    assert result.race, "the missing __syncthreads() went unnoticed"
    assert "argument 1 ('partial')" in str(result) and "__syncthreads" in str(result)
    assert torch.equal(partial, torch.zeros_like(partial)), "arguments must stay untouched"
    # Positive control: the same reduction with its barrier is schedule-independent.
    good = kernel("reduce_shared", "reduce_sum", cpu)
    assert not gc.run_twice_and_compare(good, x, partial, np.int32(n), block=(256, 1, 1),
                                        grid=(partial.numel(), 1)).race


def test_each_schedule_alone_gives_correct_results_for_correct_kernels(cpu):
    x = torch.randint(-9, 9, (1000,), dtype=torch.int32)
    for schedule in ("forward", "reverse", "random"):
        out = torch.empty_like(x)
        kernel("block_scan", "block_scan_smem", cpu)(
            x, out, np.int32(1000), block=(256, 1, 1), grid=(4, 1), shared=2 * 256 * 4,
            schedule=schedule)
        assert torch.equal(out, _block_cumsum(x, 256)), schedule


def test_out_of_bounds_read_past_the_end_is_caught_in_checked_mode(cpu):
    n = 1000  # 4000 bytes: the end of x sits right against the guard page
    x, out = torch.randn(n), torch.zeros(n)
    fn = kernel("bad_oob_read", "forward_diff", cpu)
    with pytest.raises(LaunchError) as err:
        fn(ptr(x), ptr(out), np.int32(n), block=(256, 1, 1), grid=(4, 1), checked=True)
    msg = str(err.value)
    assert "out-of-bounds read in kernel forward_diff: argument 0 ('x')" in msg
    assert "past the end" in msg and "element 1000" in msg and "thread (231, 0, 0)" in msg


def test_out_of_bounds_read_before_the_start_via_env(cpu, monkeypatch):
    monkeypatch.setenv("TCLAB_CUDA_CHECKED", "1")
    x, out = torch.randn(1000), torch.zeros(1000)
    fn = kernel("bad_oob_read", "blur3", cpu)
    with pytest.raises(LaunchError, match=r"out-of-bounds read in kernel blur3: argument 0"):
        fn(x, out, np.int32(1000), block=(256, 1, 1), grid=(4, 1))
    src = ("__global__ void backward_diff(const float* x, float* out, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n) out[i] = x[i] - x[i - 1];\n}\n")
    with pytest.raises(LaunchError, match=r"before the start .* element -1 "):
        SourceModule(src).get_function("backward_diff")(
            x, out, np.int32(1000), block=(256, 1, 1), grid=(4, 1))


def test_checked_mode_keeps_results_and_aliasing(cpu):
    n = 1001
    x, y = torch.randn(n), torch.randn(n)
    expect = 2.5 * x + y
    fn = kernel("saxpy_float4", "saxpy_float4", cpu)
    fn(ptr(x), ptr(y), ptr(y), np.float32(2.5), np.int32(n), block=(128, 1, 1),
       grid=(2, 1), checked=True)  # y is both an input and the output
    torch.testing.assert_close(y, expect)


def test_block_of_2048_threads_is_refused_like_cuda(backend):
    x = torch.zeros(4096, device=dev(backend))
    fn = kernel("saxpy_float4", "saxpy_float4", backend)
    with pytest.raises(LaunchError, match=re.escape(
            "invalid configuration argument: block (2048, 1, 1) has 2048 threads, "
            "the limit is 1024")):
        fn(x, x, x, np.float32(1), np.int32(4096), block=(2048, 1, 1), grid=(1, 1))


@pytest.mark.parametrize("block,grid,shared,message", [
    ((0, 1, 1), (1, 1), 0, "at least 1"),
    ((1, 1, 65), (1, 1), 0, "block dimension z is 65, the limit is 64"),
    ((32, 32, 2), (1, 1), 0, "has 2048 threads"),
    ((32, 1, 1), (1, 65536), 0, "grid dimension y is 65536"),
    ((32, 1, 1), (2**31, 1), 0, "grid dimension x is 2147483648"),
    ((32, 1, 1), (1, 1), 228 * 1024, "dynamic shared memory"),
])
def test_other_launch_limits(backend, block, grid, shared, message):
    x = torch.zeros(16, device=dev(backend))
    fn = kernel("saxpy_float4", "saxpy_float4", backend)
    with pytest.raises(LaunchError, match=re.escape(message)):
        fn(x, x, x, np.float32(1), np.int32(16), block=block, grid=grid, shared=shared)


def test_static_shared_over_48k_is_refused(backend):
    src = ("__global__ void big(float* out) {\n"
           "    __shared__ float s[12289];  // 49156 bytes\n"
           "    s[threadIdx.x] = 1.0f;\n    __syncthreads();\n    out[threadIdx.x] = s[0];\n}\n")
    if backend == "gpu":  # ptxas itself refuses it
        with pytest.raises(CompileError):
            SourceModule(src)
        return
    fn = SourceModule(src).get_function("big")
    with pytest.raises(LaunchError, match="49156 bytes of static __shared__"):
        fn(torch.zeros(32), block=(32, 1, 1), grid=(1, 1))



TEMPLATE_SHARED = """
template <class T> __device__ void stage(const T *x, float *out)
{
    __shared__ float tile[8192];  // 32 KiB in each instantiation
    tile[threadIdx.x] = (float)x[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x];
}
__device__ void other(float *out)
{
    __shared__ float more[4096];  // 16 KiB more
    more[threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] += more[0];
}
extern "C" __global__ void k_f32(const float *x, float *out) { stage(x, out); }
extern "C" __global__ void k_i32(const int *x, float *out) { stage(x, out); }
extern "C" __global__ void k_both(const float *x, float *out) { stage(x, out); other(out); }
"""


def test_static_shared_of_a_template_counts_the_instantiation_not_all_of_them(backend):
    # Two kernels, one instantiation each of a 32 KiB helper: each fits (a GPU runs both).
    # With a second helper's 16 KiB on top, 48 KiB, still the limit; what the CPU cannot tell
    # apart (which instantiation a kernel calls) it counts as the largest, never the sum.
    mod = SourceModule(TEMPLATE_SHARED, no_extern_c=True)
    x = torch.arange(32, dtype=torch.float32, device=dev(backend))
    out = torch.zeros(32, device=dev(backend))
    for name, arg in [("k_f32", x), ("k_i32", x.int()), ("k_both", x)]:
        mod.get_function(name)(ptr(arg), ptr(out), block=(32, 1, 1), grid=(1, 1))
    assert out[0].item() == 3.0  # k_both: tile[1] = 1, then 2 more
    # The negative control: 16 KiB of the kernel's own on top of both helpers, 64 KiB.
    over = TEMPLATE_SHARED + (
        'extern "C" __global__ void k_over(const float *x, float *out)\n'
        '{ __shared__ float mine[4096]; mine[threadIdx.x] = x[threadIdx.x]; __syncthreads();\n'
        '  stage(mine, out); other(out); }\n')
    if backend == "gpu":  # ptxas refuses it
        with pytest.raises(CompileError):
            SourceModule(over, no_extern_c=True)
        return
    with pytest.raises(LaunchError, match="65536 bytes of static __shared__"):
        SourceModule(over, no_extern_c=True).get_function("k_over")(
            ptr(x), ptr(out), block=(32, 1, 1), grid=(1, 1))

SYNTAX_ERROR = """\
__global__ void vector_add_kernel(const float* x, const float* y, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i] + ;
    if (i < n) out[i] = v;
}
"""


def test_compile_error_names_the_students_line(backend):
    with pytest.raises(CompileError) as err:
        SourceModule(SYNTAX_ERROR)
    msg = str(err.value)
    assert re.search(r"kernel\.cu[:(]4\b", msg), msg  # line 4 of the source, as written
    assert "tclab" not in msg and "module.cpp" not in msg, msg


def test_shared_initializer_is_refused_like_nvcc(backend):
    src = ("__global__ void k(float* out) {\n"
           "    __shared__ float total;  // fine\n"
           "    __shared__ float bias = 1.0f;  // nvcc: initializer not allowed\n"
           "    out[threadIdx.x] = total + bias;\n}\n")
    with pytest.raises(CompileError, match=r"kernel\.cu[:(]3\b.*initializer not allowed"):
        SourceModule(src)


def test_python_int_argument_is_a_clear_type_error(backend):
    x = torch.zeros(8, device=dev(backend))
    fn = kernel("bad_oob_read", "forward_diff", backend)
    with pytest.raises(TypeError, match=r"argument 2 .*is a Python int: pass np\.int32\(8\) "
                                        r"\(CUDA needs a fixed-width type"):
        fn(x, x, 8, block=(32, 1, 1), grid=(1, 1))


def test_argument_types_and_count_are_checked(cpu):
    x = torch.zeros(8)
    fn = kernel("saxpy_float4", "saxpy_float4", cpu)
    with pytest.raises(TypeError, match=r"argument 3 \('a'\) is a float parameter, got "
                                        r"np\.float64: pass np\.float32"):
        fn(x, x, x, np.float64(1), np.int32(8), block=(32, 1, 1), grid=(1, 1))
    with pytest.raises(TypeError, match=r"takes 5 arguments \(x, y, out, a, n\), got 4"):
        fn(x, x, x, np.float32(1), block=(32, 1, 1), grid=(1, 1))
    with pytest.raises(TypeError, match=r"argument 4 \('n'\) is an int parameter, got np\.int64"):
        fn(x, x, x, np.float32(1), np.int64(8), block=(32, 1, 1), grid=(1, 1))
    with pytest.raises(TypeError, match=r"argument 0 \('x'\) is a float\* parameter, got "
                                        r"np\.int32"):
        fn(np.int32(0), x, x, np.float32(1), np.int32(8), block=(32, 1, 1), grid=(1, 1))
    with pytest.raises(TypeError, match=r"argument 1 \('y'\) is a float\* parameter, got a "
                                        r"tensor of float64"):
        fn(x, x.double(), x, np.float32(1), np.int32(8), block=(32, 1, 1), grid=(1, 1))


def test_numpy_arrays_and_in_out_wrappers(backend):
    x = np.arange(10, dtype=np.float32)
    y = np.ones(10, dtype=np.float32)
    out = np.zeros(10, dtype=np.float32)
    fn = kernel("saxpy_float4", "saxpy_float4", backend)
    fn(gc.In(x), gc.In(y), gc.Out(out), np.float32(2), np.int32(10), block=(32, 1, 1),
       grid=(1, 1))
    np.testing.assert_array_equal(out, 2 * x + 1)
    fn(x, y, out, np.float32(3), np.int32(10), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(out, 3 * x + 1)


ALIGNED = r"""
__global__ void aligned(float *x, float *out, int n, int *flags)
{
    int i = threadIdx.x;
    if (i == 0)
        flags[0] = ((unsigned long long)x % 256 == 0) + 2 * ((unsigned long long)out % 256 == 0);
    if (i < n) { out[i] = x[i] + 1.0f; x[i] = -1.0f; }
}
"""


def misaligned(n: int) -> np.ndarray:
    """A float32 array of n whose data starts 16 bytes past a 32-byte boundary."""
    raw = np.zeros(n + 16, dtype=np.float32)
    k = ((16 - raw.ctypes.data % 32) % 32) // 4
    return raw[k:k + n]


def test_numpy_arrays_reach_a_kernel_as_device_memory_does(backend):
    """A numpy array, bare or wrapped, reaches the kernel as a copy aligned to 256 bytes (a GPU
    allocation): bare arrays and InOut come back, Out comes back, In does not."""
    fn = SourceModule(ALIGNED).get_function("aligned")
    x, out, flags = misaligned(8), misaligned(8), np.zeros(1, dtype=np.int32)
    assert x.ctypes.data % 32 == 16  # the control: as given, the array is not aligned
    x[:] = np.arange(8)
    fn(gc.In(x), gc.Out(out), np.int32(8), flags, block=(32, 1, 1), grid=(1, 1))
    assert flags[0] == 3, "an array reached the kernel at its own, unaligned address"
    np.testing.assert_array_equal(out, np.arange(8) + 1)
    np.testing.assert_array_equal(x, np.arange(8))  # In: the kernel's writes stay on the device
    fn(x, out, np.int32(8), gc.InOut(flags), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(x, -np.ones(8))  # bare: copied back, as pycuda's InOut


VECTOR_LOAD = r"""
__global__ void vector_copy(const float *x, float *out, int offset)
{
    // 16 bytes a thread, from x + offset: a multiple of 4 floats keeps the uint4 aligned.
    reinterpret_cast<uint4 *>(out)[threadIdx.x] =
        reinterpret_cast<const uint4 *>(x + offset)[threadIdx.x];
}
"""


def test_a_misaligned_vector_load_is_named_as_on_a_gpu(cpu):
    """A uint4 read 4 bytes past a 16-byte boundary: a GPU stops with "misaligned address";
    so does the CPU backend, naming the thread (not an illegal access at address 0)."""
    fn = SourceModule(VECTOR_LOAD).get_function("vector_copy")
    x, out = torch.arange(256, dtype=torch.float32), torch.zeros(128)
    fn(x, out, np.int32(4), block=(32, 1, 1), grid=(1, 1))  # the control: aligned, it runs
    assert torch.equal(out, x[4:132])
    with pytest.raises(LaunchError, match=r"misaligned address in kernel vector_copy, by block "
                                          r"\(0, 0, 0\), thread .*uint4, float4"):
        fn(x, out, np.int32(1), block=(32, 1, 1), grid=(1, 1))


KERNEL_ERRORS = {
    "device_assert": ("#include <assert.h>\n__global__ void k(int* x) {\n"
                      "    assert(x[threadIdx.x] < 3);\n}\n",
                      r"device-side assert triggered in kernel k .*Assertion `x\[threadIdx.x\] "
                      r"< 3` failed"),
    "deadlock": ("__global__ void k(int* x) {\n    if (threadIdx.x < 16) __syncthreads();\n"
                 "    else __syncwarp();\n    x[threadIdx.x] = 1;\n}\n", r"deadlock"),
    "divergent_barrier": ("__global__ void k(int* x) {\n    if (threadIdx.x < 16) {\n"
                          "        __syncthreads();\n    } else {\n        __syncthreads();\n"
                          "    }\n    x[threadIdx.x] = 1;\n}\n",
                          r"divergent barrier: 16 threads .* line 3 and 16 at another, line 5"),
    "shuffle_after_return": ("__global__ void k(int* x) {\n    if (threadIdx.x >= 8) return;\n"
                             "    x[threadIdx.x] = __shfl_xor_sync(0xffffffff, x[threadIdx.x], 1);"
                             "\n}\n",
                             r"__shfl_xor_sync at kernel.cu line 3: .* already returned"),
    "stack_overflow": ("__global__ void k(int* x) {\n    volatile int big[200000];\n"
                       "    big[threadIdx.x] = 1;\n    x[threadIdx.x] = big[x[0]];\n}\n",
                       r"stack overflow"),
    "division_by_zero": ("__global__ void k(int* x) {\n    x[threadIdx.x] = 7 / x[0];\n}\n",
                         r"integer division by zero"),
}


@pytest.mark.parametrize("case", sorted(KERNEL_ERRORS))
def test_kernel_failures_raise_instead_of_killing_python(cpu, case):
    src, pattern = KERNEL_ERRORS[case]
    x = torch.zeros(32, dtype=torch.int32)
    x[5] = 7
    with pytest.raises(LaunchError, match=pattern):
        SourceModule(src).get_function("k")(x, block=(32, 1, 1), grid=(1, 1))


def test_a_shuffle_naming_lanes_past_the_block_names_its_line(cpu):
    """16 threads, a full mask: it works on today's GPUs by luck and is undefined."""
    src = ("__global__ void k(int* x) {\n    int v = x[threadIdx.x];\n"
           "    x[threadIdx.x] = __shfl_down_sync(0xffffffff, v, 1);\n}\n")
    x = torch.zeros(16, dtype=torch.int32)
    with pytest.raises(LaunchError, match=r"__shfl_down_sync at kernel.cu line 3: .* lanes "
                                          r"16-31 of warp 0, which do not exist"):
        SourceModule(src).get_function("k")(x, block=(16, 1, 1), grid=(1, 1))
    ok = src.replace("0xffffffff", "0xffffu")
    SourceModule(ok).get_function("k")(x, block=(16, 1, 1), grid=(1, 1))


def test_kernels_named_by_a_macro_are_found(cpu):
    src = ("#define DEFINE_FILL(N) \\\n"
           "    __global__ void fill_v##N(int* x) { x[threadIdx.x] = N; }\n"
           "DEFINE_FILL(4)\nDEFINE_FILL(8)\n")
    x = torch.zeros(32, dtype=torch.int32)
    module = SourceModule(src)
    module.get_function("fill_v8")(x, block=(32, 1, 1), grid=(1, 1))
    assert int(x.sum()) == 8 * 32
    module.get_function("fill_v4")(x, block=(32, 1, 1), grid=(1, 1))
    assert int(x.sum()) == 4 * 32


def test_illegal_address_without_checked_mode_names_the_kernel(cpu):
    fn = kernel("saxpy_float4", "saxpy_float4", cpu)
    x = torch.zeros(8)
    with pytest.raises(LaunchError, match=r"illegal memory access .* in kernel saxpy_float4"):
        fn(x, x, np.uintp(16), np.float32(1), np.int32(8), block=(32, 1, 1), grid=(1, 1))


def test_cached_module_loads_fast_and_has_its_own_globals(cpu):
    src = ("__device__ int counter;\n"
           "__global__ void bump(int* out) { out[0] = atomicAdd(&counter, 1); }\n")
    first = SourceModule(src)
    start = time.perf_counter()
    second = SourceModule(src)
    elapsed = time.perf_counter() - start
    assert second.cached and not first.cached
    assert elapsed < 0.25, f"cached load took {elapsed * 1e3:.0f} ms"
    out = torch.zeros(1, dtype=torch.int32)
    for mod in (first, first, second):
        mod.get_function("bump")(out, block=(1, 1, 1), grid=(1, 1))
    assert out.item() == 0  # second's counter starts at 0, not at first's 2


def test_kernels_still_run_in_a_forked_child(cpu):
    fn = kernel("saxpy_float4", "saxpy_float4", cpu)
    x = torch.ones(64)
    fn(x, x, x, np.float32(1), np.int32(64), block=(16, 1, 1), grid=(1, 1))  # pool started
    pid = os.fork()
    if pid == 0:  # the pool's threads did not survive the fork: the runtime must start anew
        fn(x, x, x, np.float32(1), np.int32(64), block=(16, 1, 1), grid=(1, 1))
        os._exit(0 if torch.equal(x, torch.full((64,), 4.0)) else 1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("a launch in a forked child hung")


def test_cpp_linkage_kernel_names_its_mangled_symbol(cpu):
    mod = SourceModule("__global__ void k(float* x) { x[0] = 1; }", no_extern_c=True)
    with pytest.raises(KernelNotFound, match=r"C\+\+ linkage .*'_Z1kPf'"):
        mod.get_function("k")
    x = torch.zeros(1)
    mod.get_function("_Z1kPf")(x, block=(1, 1, 1), grid=(1, 1))
    assert x.item() == 1


def test_fp16_inside_extern_c_fails_as_with_nvcc(backend):
    with pytest.raises(CompileError) as err:
        SourceModule("#include <cuda_fp16.h>\n__global__ void k(__half* x) {}\n")
    if backend == "cpu":  # nvcc's own message is about C linkage of its operators
        assert re.search(r"kernel\.cu:1: .*no_extern_c=True", str(err.value)), str(err.value)


def test_device_choice(monkeypatch):
    monkeypatch.setenv("TCLAB_DEVICE", "cpu")
    assert gc.device() == "cpu"
    monkeypatch.setenv("TCLAB_DEVICE", "auto")
    assert gc.device() == ("gpu" if torch.cuda.is_available() else "cpu")
    monkeypatch.setenv("TCLAB_DEVICE", "tpu")
    with pytest.raises(ValueError, match="TCLAB_DEVICE"):
        gc.device()


# ------------------------------------------------------------------ the kernels are real CUDA


def _nvcc_compile(path: Path, tmp: Path) -> str | None:
    src = path.read_text()
    body = f'#line 1 "{path.name}"\n{src}\n'
    wrapped = body if "tclab: no_extern_c" in src else f'extern "C" {{\n{body}}}\n'
    cu = tmp / path.name
    cu.write_text(wrapped)  # exactly what pycuda's SourceModule hands to nvcc
    res = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(cu) + ".o"],
                         capture_output=True, text=True, check=False)
    return None if res.returncode == 0 else f"{path.name}:\n{res.stderr}"


def test_every_kernel_compiles_with_nvcc(tmp_path):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found: cannot check that the test kernels are valid CUDA")
    files = sorted(KERNELS.glob("*.cu"))
    assert len(files) >= 10
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        failures = [f for f in pool.map(lambda p: _nvcc_compile(p, tmp_path), files) if f]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("n", [1, 17, 256, 1000])
def test_cooperative_groups_tiles_and_reduce(backend, n):
    x = randn(n, backend=backend)
    tiles, blocks = cdiv(n, 16), cdiv(n, 128)
    tile_max = torch.full((tiles,), float("nan"), device=dev(backend))
    tile_pos = torch.full((tiles,), -1, dtype=torch.int32, device=dev(backend))
    block_sum = torch.full((blocks,), float("nan"), device=dev(backend))
    kernel("coop_groups", "tile_stats", backend)(
        ptr(x), ptr(tile_max), ptr(tile_pos), ptr(block_sum), np.int32(n),
        block=(128, 1, 1), grid=(blocks, 1))
    padded = torch.cat([x.cpu(), torch.full((tiles * 16 - n,), float("-inf"))]).view(tiles, 16)
    assert torch.equal(tile_max.cpu(), padded.max(dim=1).values)
    assert torch.equal(tile_pos.cpu(), (padded > 0).sum(dim=1).int())
    want = torch.cat([x.cpu(), torch.zeros(blocks * 128 - n)]).view(blocks, 128).sum(dim=1)
    torch.testing.assert_close(block_sum.cpu(), want, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ tensor cores: nvcuda::wmma
# and the cp.async primitives of <cuda_pipeline.h> (kernels: tests/cuda_kernels/wmma.cu; the
# negative controls: bad_wmma.cu and bad_inline_ptx.cu, one rule each).

FP32_EPS = 2.0**-24  # unit roundoff of float32


def halves(*shape, backend: str, seed: int, dtype=torch.float16) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype).to(dev(backend))


def padded(x: torch.Tensor, ld: int, fill=0.0) -> torch.Tensor:
    """x (rows x cols) in a rows x ld buffer: ld elements between rows, the rest `fill`."""
    out = torch.full((x.shape[0], ld), fill, dtype=x.dtype, device=x.device)
    out[:, : x.shape[1]] = x
    return out


def assert_product(got: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c=None, *,
                   half_result=False, what=""):
    """got == a @ b (+ c) within what float32 accumulation allows: products of halves are exact,
    so a sum of K + 1 terms is off by at most (K + 1) u sum|terms| (doubled: the GPU's tensor
    cores round their partial sums their own way). A half result adds a rounding to half, two
    on a GPU (an H200 was seen at 0.9 of one: its tensor core rounds the sum its own way too)."""
    a, b = a.double().cpu(), b.double().cpu()
    ref = a @ b
    scale = a.abs() @ b.abs()
    if c is not None:
        ref, scale = ref + c.double().cpu(), scale + c.double().cpu().abs()
    bound = 2 * (a.shape[1] + 1) * FP32_EPS * scale
    if half_result:  # two roundings to half: 2^-10 relative, 2^-23 absolute near zero
        bound = bound + torch.clamp(ref.abs() * 2.0**-10, min=2.0**-23)
    err = (got.double().cpu() - ref).abs()
    bad = ~(err <= bound)  # NaN fails too
    if bad.any():
        idx = bad.nonzero()[:5].tolist()
        first = [(tuple(i), got.double().cpu()[tuple(i)].item(), ref[tuple(i)].item())
                 for i in idx]
        pytest.fail(f"{what}: {int(bad.sum())} of {got.numel()} elements of the "
                    f"{tuple(got.shape)} result are off; first (index, got, expected): {first}")


@pytest.mark.parametrize("la,lb", [("row", "row"), ("row", "col"), ("col", "row"),
                                   ("col", "col")])
@pytest.mark.parametrize("c_col,d_col", [(0, 0), (1, 0), (0, 1)])
def test_wmma_tile_layouts(backend, la, lb, c_col, d_col):
    """D = A @ B + C for one 16x16x16 tile, A and B in either layout, C and D in either memory
    layout, every matrix padded to ld 24 (the padding of D must stay untouched)."""
    a = halves(16, 16, backend=backend, seed=1)
    b = halves(16, 16, backend=backend, seed=2)
    c = halves(16, 16, backend=backend, seed=3).float()
    a_mem = padded(a if la == "row" else a.t(), 24)   # col-major A: column j is row j
    b_mem = padded(b if lb == "row" else b.t(), 24)
    c_mem = padded(c.t() if c_col else c, 24)
    d_mem = torch.full((16, 24), float("nan"), device=dev(backend))
    fn = kernel("wmma", f"tile_{la[0]}{lb[0]}", backend)
    fn(a_mem, np.int32(24), b_mem, np.int32(24), c_mem, np.int32(24), np.int32(c_col), d_mem,
       np.int32(24), np.int32(d_col), block=(32, 1, 1), grid=(1, 1))
    d = d_mem[:, :16].t() if d_col else d_mem[:, :16]
    assert_product(d, a, b, c, what=f"A {la}-major, B {lb}-major")
    assert torch.isnan(d_mem[:, 16:]).all(), "store_matrix_sync wrote into the padding"


def wmma_maps(backend: str) -> dict:
    """{fragment: [lane, element] -> 16 row + column of the tile position it holds}, from
    tests/cuda_kernels/wmma_maps.cu, compiled afresh (TCLAB_WMMA_LAYOUT is read at compile
    time)."""
    numbers = torch.arange(256, dtype=torch.float32, device=dev(backend))
    out = {name: torch.full((32, 8), -1, dtype=torch.int32, device=dev(backend))
           for name in ("accumulator", "matrix_a", "matrix_b")}
    src = (KERNELS / "wmma_maps.cu").read_text()
    SourceModule(src, no_extern_c=True).get_function("maps")(
        numbers, numbers.bfloat16(), *out.values(), block=(32, 1, 1), grid=(1, 1))
    return {name: t.cpu() for name, t in out.items()}


def mma_sync_map() -> dict:
    """The map of PTX's mma.m16n8k16 fragments, twice across (n 0-7, then 8-15): lane 4 g + t,
    element e."""
    g, t = torch.arange(32)[:, None] // 4, torch.arange(32)[:, None] % 4
    e = torch.arange(8)[None, :]
    rows, cols = g + 8 * (e // 2 % 2), 2 * t + e % 2 + 8 * (e // 4)  # accumulator, matrix_a
    k, n = 2 * t + e % 2 + 8 * (e // 2 % 2), g + 8 * (e // 4)      # matrix_b: K x N
    return {"accumulator": 16 * rows + cols, "matrix_a": 16 * rows + cols, "matrix_b": 16 * k + n}


def test_wmma_maps_are_the_gpus_or_the_cpu_backends_own(backend, monkeypatch):
    """On a GPU, mma.sync's map (what lab16's references check at run time before they reduce
    rows through quad shuffles); on the CPU backend its own (lane L holds elements 8 L ..
    8 L + 7, row-major), or the GPU's with TCLAB_WMMA_LAYOUT=mma, where an unknown value is a
    compile error that names the variable."""
    gpu = mma_sync_map()
    own = {name: torch.arange(256).reshape(32, 8) for name in gpu}
    got = wmma_maps(backend)
    want = gpu if backend == "gpu" else own
    for name in gpu:
        assert torch.equal(got[name].long(), want[name]), (name, got[name][:2])
    if backend == "gpu":
        return
    monkeypatch.setenv("TCLAB_WMMA_LAYOUT", "mma")
    got = wmma_maps(backend)
    for name in gpu:
        assert torch.equal(got[name].long(), gpu[name]), (name, got[name][:2])
    a = halves(16, 16, backend=backend, seed=11, dtype=torch.bfloat16)
    b = halves(16, 16, backend=backend, seed=12, dtype=torch.bfloat16)
    d = torch.full((16, 16), float("nan"), device=dev(backend))
    src = (KERNELS / "wmma.cu").read_text()  # compiled afresh, in the GPU's map
    SourceModule(src, no_extern_c=True).get_function("shape_16x16x16_bf16")(
        a, b.t().contiguous(), d, block=(32, 1, 1), grid=(1, 1))
    assert_product(d, a, b, what="bfloat16 mma_sync in the GPU's map")
    monkeypatch.setenv("TCLAB_WMMA_LAYOUT", "sm90")
    with pytest.raises(CompileError, match="TCLAB_WMMA_LAYOUT='sm90'"):
        wmma_maps(backend)


def test_wmma_half_accumulators(backend):
    a = halves(16, 16, backend=backend, seed=4)
    b = halves(16, 16, backend=backend, seed=5)
    c_half = halves(16, 16, backend=backend, seed=6)
    c_float = halves(16, 16, backend=backend, seed=7).float() / 3  # not halves
    d_half, d_from_float = (torch.full((16, 16), float("nan"), dtype=torch.float16,
                                       device=dev(backend)) for _ in range(2))
    d_float = torch.full((16, 16), float("nan"), device=dev(backend))
    kernel("wmma", "tile_half", backend)(a, b, c_half, c_float, d_half, d_from_float, d_float,
                                          block=(32, 1, 1), grid=(1, 1))
    assert_product(d_half, a, b, c_half, half_result=True, what="half C, half D")
    assert_product(d_from_float, a, b, c_float, half_result=True, what="float C, half D")
    assert_product(d_float, a, b, c_half, what="half C, float D")


def test_wmma_elementwise_ops_on_fragments(backend):
    a = halves(16, 16, backend=backend, seed=8)
    b = halves(16, 16, backend=backend, seed=9)
    c = halves(16, 16, backend=backend, seed=10).float()
    out = torch.full((16, 16), float("nan"), dtype=torch.float16, device=dev(backend))
    alpha, beta = 0.75, -1.5
    kernel("wmma", "tile_epilogue", backend)(a, b.t().contiguous(), c, np.float32(alpha),
                                             np.float32(beta), out, block=(32, 1, 1),
                                             grid=(1, 1))
    ref = torch.relu(alpha * (2 * a.double().cpu() @ b.double().cpu()) + beta * c.double().cpu())
    bound = (2 * 17 * FP32_EPS * (alpha * 2 * a.double().abs().cpu() @ b.double().abs().cpu()
                                  + abs(beta) * c.double().abs().cpu())
             + torch.clamp(ref.abs() * 2.0**-10, min=2.0**-23))
    err = (out.double().cpu() - ref).abs()
    assert (err <= bound).all(), f"{int((err > bound).sum())} elements off; max error {err.max()}"
    assert (out.cpu() >= 0).all()


@pytest.mark.parametrize("name,m,n,k,dtype", [
    ("shape_32x8x16", 32, 8, 16, torch.float16),
    ("shape_8x32x16", 8, 32, 16, torch.float16),
    ("shape_16x16x16_bf16", 16, 16, 16, torch.bfloat16),
    ("shape_32x8x16_bf16", 32, 8, 16, torch.bfloat16),
])
def test_wmma_other_shapes_and_bfloat16(backend, name, m, n, k, dtype):
    a = halves(m, k, backend=backend, seed=11, dtype=dtype)
    b = halves(k, n, backend=backend, seed=12, dtype=dtype)
    d = torch.full((m, n), float("nan"), device=dev(backend))
    kernel("wmma", name, backend)(a, b.t().contiguous(), d, block=(32, 1, 1), grid=(1, 1))
    assert_product(d, a, b, what=name)


def test_wmma_fragment_sizes_match_cuda(backend):
    out = torch.full((9,), -1, dtype=torch.int32, device=dev(backend))
    kernel("wmma", "fragment_sizes", backend)(out, block=(32, 1, 1), grid=(1, 1))
    # num_elements as CUDA's <mma.h> declares them; sizeof: 16 halves
    assert out.cpu().tolist() == [16, 16, 8, 8, 8, 16, 4, 4, 32]


@pytest.mark.parametrize("m,n,k", [(1, 8, 8), (64, 64, 32), (200, 136, 72), (129, 264, 200)])
def test_wmma_tiled_matmul_double_buffered(backend, m, n, k):
    """4 warps a block, a K loop over two shared-memory stages filled by
    __pipeline_memcpy_async (tails zero-filled), WMMA on each, a guarded store."""
    a = halves(m, k, backend=backend, seed=m)
    b = halves(k, n, backend=backend, seed=n)
    c = torch.full((m, n), float("nan"), device=dev(backend))
    kernel("wmma", "wmma_matmul", backend)(a, b, c, np.int32(m), np.int32(n), np.int32(k),
                                           block=(128, 1, 1), grid=(cdiv(n, 64), cdiv(m, 64)))
    assert_product(c, a, b, what=f"{m}x{n}x{k}")


def test_wmma_missing_barrier_is_a_race(cpu):
    m, n, k = 200, 136, 72
    a, b = halves(m, k, backend=cpu, seed=1), halves(k, n, backend=cpu, seed=2)
    c = torch.zeros(m, n)
    args = (a, b, c, np.int32(m), np.int32(n), np.int32(k))
    launch = dict(block=(128, 1, 1), grid=(cdiv(n, 64), cdiv(m, 64)))
    good = gc.run_twice_and_compare(kernel("wmma", "wmma_matmul", cpu), *args, **launch)
    assert not good.race, str(good)
    bad = gc.run_twice_and_compare(kernel("wmma", "wmma_matmul_missing_barrier", cpu), *args,
                                   **launch)
    assert bad.race and "argument 2 ('C')" in str(bad), str(bad)


@pytest.mark.parametrize("blocks", [1, 3])
def test_pipeline_copies_land_at_the_wait(backend, blocks):
    src = randn(blocks * 1024, backend=backend)
    out = torch.full_like(src, float("nan"))
    kernel("wmma", "staged_reverse", backend)(src, out, block=(256, 1, 1), grid=(blocks, 1))
    assert torch.equal(out, src.view(blocks, 1024).flip(1).flatten())


@pytest.mark.parametrize("name", ["staged_reverse_no_wait", "staged_reverse_no_commit"])
def test_pipeline_read_before_the_wait_reads_poison(cpu, name):
    """Copies land at the __pipeline_wait_prior() that covers them: reading a stage without
    waiting (or waiting without committing) gives NaN here, stale data now and then on a GPU."""
    src = torch.randn(1024)
    fn = kernel("wmma", name, cpu)
    for schedule in ("forward", "reverse"):
        out = torch.zeros(1024)
        fn(src, out, block=(256, 1, 1), grid=(1, 1), schedule=schedule)
        assert torch.isnan(out).any(), f"{name} under {schedule}: no read saw a missing copy"


def test_guarded_inline_ptx_and_compiler_barrier_compile(backend):
    out = torch.full((64,), 99, dtype=torch.int32, device=dev(backend))
    kernel("wmma", "lane_ids", backend)(out, block=(64, 1, 1), grid=(1, 1))
    assert out.cpu().tolist() == [i % 32 for i in range(64)]


def marked_line(name: str, marker: str) -> int:
    """The line of tests/cuda_kernels/<name>.cu holding `marker` (1-based)."""
    lines = (KERNELS / f"{name}.cu").read_text().splitlines()
    hits = [i + 1 for i, text in enumerate(lines) if marker in text]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


WMMA_CONTROLS = {  # kernel: (threads, message; {L} = the line marked "// control: <kernel>")
    "divergent_load": (32, r"nvcuda::wmma::load_matrix_sync at kernel\.cu line {L}: the lanes "
                           r"of warp 0 are split: 16 wait at nvcuda::wmma::load_matrix_sync "
                           r"\(line {L}\) and 16 at nvcuda::wmma::load_matrix_sync \(line {L2}\)"),
    "early_return": (64, r"nvcuda::wmma::store_matrix_sync at kernel\.cu line {L} is a "
                         r"warp-collective call: all 32 lanes of warp 1 must make it, and "
                         r"(lane \d+ has|lanes \S+ have) already returned"),
    "lane_pointers": (32, r"nvcuda::wmma::load_matrix_sync at kernel\.cu line {L} \(warp 0\): "
                          r"the lanes passed different pointers: lane 0 0x[0-9a-f]+, lane 1 "
                          r"0x[0-9a-f]+ \(\+32 bytes\)"),
    "lane_layouts": (32, r"nvcuda::wmma::store_matrix_sync at kernel\.cu line {L} \(warp 0\): "
                         r"the lanes passed different layouts: lane 0 mem_row_major "
                         r"\(row_major\), lane 16 mem_col_major"),
    "bad_ldm": (32, r"nvcuda::wmma::load_matrix_sync at kernel\.cu line {L} \(warp 0\): "
                    r"ldm = 20 is not a multiple of 8"),
    "misaligned": (32, r"nvcuda::wmma::load_matrix_sync at kernel\.cu line {L} \(warp 0\): the "
                       r"pointer 0x[0-9a-f]+ \(__half\*\) is 16 bytes past a 32-byte boundary"),
    "pipeline_bad_size": (32, r"__pipeline_memcpy_async at kernel\.cu line {L}: "
                              r"size_and_align = 12; it must be 4, 8 or 16 bytes"),
    "pipeline_misaligned": (32, r"__pipeline_memcpy_async at kernel\.cu line {L}: src_global "
                                r"0x[0-9a-f]+ is not aligned to size_and_align = 16 bytes"),
}


@pytest.mark.parametrize("name", sorted(WMMA_CONTROLS))
def test_wmma_rule_broken_is_named(cpu, name):
    threads, pattern = WMMA_CONTROLS[name]
    line = marked_line("bad_wmma", f"// control: {name}")
    pattern = pattern.format(L=line, L2=line + 2)
    a = torch.randn(32, 32).half()  # 32-byte aligned (torch aligns allocations to 64)
    d = torch.zeros(32 * 64)
    args = {"divergent_load": (a, a, d), "early_return": (d,), "lane_pointers": (a, d),
            "lane_layouts": (d,), "bad_ldm": (a, d, np.int32(20)), "misaligned": (a, d),
            "pipeline_bad_size": (d, d), "pipeline_misaligned": (d, d)}[name]
    fn = kernel("bad_wmma", name, cpu)
    for schedule in ("forward", "reverse", "random"):
        with pytest.raises(LaunchError, match=pattern):
            fn(*args, block=(threads, 1, 1), grid=(1, 1), schedule=schedule)


def int8s(*shape, backend: str, seed: int, dtype=torch.int8) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    lo, hi = (-128, 128) if dtype == torch.int8 else (0, 256)
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int32).to(dtype).to(dev(backend))


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8])
def test_wmma_int8_tile_is_exact(backend, dtype):
    """D = A @ B + C with 8-bit multiplicands and an int accumulator: exact, as on a GPU; a
    signed and an unsigned A of the same bytes give different products (the type matters)."""
    a = int8s(16, 16, backend=backend, seed=21, dtype=dtype)
    b = int8s(16, 16, backend=backend, seed=22, dtype=dtype)
    c = int8s(16, 16, backend=backend, seed=23).int() * 1000
    d = torch.full((16, 16), -1, dtype=torch.int32, device=dev(backend))
    name = "tile_s8" if dtype == torch.int8 else "tile_u8"
    kernel("wmma_int8", name, backend)(a, b.t().contiguous(), c, d, np.int32(0),
                                       block=(32, 1, 1), grid=(1, 1))
    want = a.cpu().long() @ b.cpu().long() + c.cpu().long()
    assert torch.equal(d.cpu().long(), want)
    if dtype == torch.uint8:  # the control: the same bytes read as signed give another product
        signed = a.cpu().view(torch.int8).long() @ b.cpu().view(torch.int8).long()
        assert not torch.equal(signed + c.cpu().long(), want)


def test_wmma_int8_accumulator_wraps_or_saturates(backend):
    """127 * 127 * 16 added to C = 2^31 - 200000 passes int's range: it wraps modulo 2^32, or
    with satf stops at INT_MAX."""
    a = torch.full((16, 16), 127, dtype=torch.int8, device=dev(backend))
    c = torch.full((16, 16), 2**31 - 200000, dtype=torch.int32, device=dev(backend))
    total = 127 * 127 * 16 + 2**31 - 200000
    for satf, want in ((0, total - 2**32), (1, 2**31 - 1)):
        d = torch.zeros(16, 16, dtype=torch.int32, device=dev(backend))
        kernel("wmma_int8", "tile_s8", backend)(a, a, c, d, np.int32(satf), block=(32, 1, 1),
                                                grid=(1, 1))
        assert (d.cpu() == want).all(), (satf, d.cpu()[0, 0].item(), want)


@pytest.mark.parametrize("name,m,n", [("shape_32x8", 32, 8), ("shape_8x32", 8, 32)])
def test_wmma_int8_other_shapes(backend, name, m, n):
    a = int8s(m, 16, backend=backend, seed=24)
    b = int8s(16, n, backend=backend, seed=25)
    d = torch.full((m, n), -1, dtype=torch.int32, device=dev(backend))
    kernel("wmma_int8", name, backend)(a, b.t().contiguous(), d, block=(32, 1, 1), grid=(1, 1))
    assert torch.equal(d.cpu().long(), a.cpu().long() @ b.cpu().long())


def test_wmma_int8_fragment_sizes_match_cuda(backend):
    out = torch.full((7,), -1, dtype=torch.int32, device=dev(backend))
    kernel("wmma_int8", "sizes", backend)(out, block=(32, 1, 1), grid=(1, 1))
    assert out.cpu().tolist() == [8, 8, 8, 16, 4, 4, 16]  # num_elements as CUDA declares them


def test_wmma_int8_in_a_partial_warp_is_named(cpu):
    line = marked_line("wmma_int8", "// control: partial_warp")
    a = torch.zeros(16, 16, dtype=torch.int8)
    d = torch.zeros(32, dtype=torch.int32)
    fn = kernel("wmma_int8", "partial_warp", cpu)
    with pytest.raises(LaunchError, match=rf"load_matrix_sync.*line {line}"):
        fn(a, d, block=(32, 1, 1), grid=(1, 1))


def test_wmma_in_a_block_of_16_threads_is_named(cpu):
    line = marked_line("wmma", "wmma::load_matrix_sync(fa, a, lda);")
    x = torch.zeros(16, 24).half()
    d = torch.zeros(16, 24)
    fn = kernel("wmma", "tile_rr", cpu)
    args = (x, np.int32(24), x, np.int32(24), d, np.int32(24), np.int32(0), d, np.int32(24),
            np.int32(0))
    with pytest.raises(LaunchError, match=rf"nvcuda::wmma::load_matrix_sync at kernel\.cu line "
                                          rf"{line} is a warp-collective call: .* warp 0 of this "
                                          r"16-thread block has only 16 lanes"):
        fn(*args, block=(16, 1, 1), grid=(1, 1))
    fn(*args, block=(32, 1, 1), grid=(1, 1))  # positive control: a whole warp


def test_inline_ptx_is_refused_on_the_cpu_one_line_each(cpu):
    mma = marked_line("bad_inline_ptx", "// control: mma_ptx")
    cp_async = marked_line("bad_inline_ptx", "// control: cp_async_ptx")
    with pytest.raises(CompileError) as err:
        load("bad_inline_ptx", cpu)
    assert str(err.value).splitlines() == [
        f"kernel.cu:{mma}: inline PTX (`mma.sync`) cannot run on the CPU backend; write "
        "tensor-core code with nvcuda::wmma (<mma.h>), which runs on both",
        f"kernel.cu:{cp_async}: inline PTX (`cp.async`) cannot run on the CPU backend; copy with "
        "__pipeline_memcpy_async, __pipeline_commit and __pipeline_wait_prior "
        "(<cuda_pipeline.h>), which run on both",
    ]


@pytest.mark.parametrize("header", ["mma.h", "cuda_pipeline.h"])
def test_wmma_headers_inside_extern_c_fail_as_with_nvcc(backend, header):
    with pytest.raises(CompileError) as err:
        SourceModule(f"#include <{header}>\n__global__ void k(float* x) {{}}\n")
    if backend == "cpu":
        assert re.search(r"kernel\.cu:1: .*no_extern_c=True", str(err.value)), str(err.value)


WMMA_MISUSE = {  # what nvcc refuses to compile must not compile on the CPU either
    "float_matrix_a": "wmma::fragment<wmma::matrix_a, 16, 16, 16, float, wmma::row_major> f;",
    "accumulator_without_layout": ("wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;\n"
                                   "    wmma::load_matrix_sync(f, p, 16);"),
    "mixed_shapes": ("wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;\n"
                     "    wmma::fragment<wmma::matrix_b, 32, 8, 16, __half, wmma::row_major> b;\n"
                     "    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;\n"
                     "    wmma::mma_sync(c, a, b, c);"),
}


@pytest.mark.parametrize("case", sorted(WMMA_MISUSE))
def test_wmma_misuse_fails_to_compile_like_nvcc(cpu, case, tmp_path):
    src = ("#include <mma.h>\nusing namespace nvcuda;\n"
           'extern "C" __global__ void k(float* p) {\n    ' + WMMA_MISUSE[case] + "\n}\n")
    with pytest.raises(CompileError):
        SourceModule(src, no_extern_c=True)
    if shutil.which("nvcc"):
        cu = tmp_path / "k.cu"
        cu.write_text(src)
        res = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(cu) + ".o"],
                             capture_output=True, text=True, check=False)
        assert res.returncode != 0, f"nvcc accepts {case}: the CPU backend should too"


STATIC_AND_DYNAMIC = r"""
extern "C" __global__ void both(float *out)
{
    __shared__ float fixed[8192];           // 32 KiB static
    extern __shared__ float more[];         // and 32 KiB dynamic: 64 KiB, past the 48 by default
    fixed[threadIdx.x] = 1.0f;
    more[8191 - threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = fixed[threadIdx.x] + more[8191 - threadIdx.x];
}
"""


def test_static_and_dynamic_shared_memory_past_48_kib_launch(backend):
    """32 KiB of static and 32 KiB of dynamic shared memory: CUDA launches it only with the
    opt-in for the dynamic part (which the GPU backend asks for once the two together pass
    48 KiB, not the dynamic part alone); the CPU backend allows it outright."""
    out = torch.zeros(32, device="cuda" if backend == "gpu" else "cpu")
    SourceModule(STATIC_AND_DYNAMIC).get_function("both")(out, block=(32, 1, 1), grid=(1, 1),
                                                          shared=32 * 1024)
    if backend == "gpu":
        torch.cuda.synchronize()
    assert torch.equal(out.cpu(), torch.full((32,), 3.0))
