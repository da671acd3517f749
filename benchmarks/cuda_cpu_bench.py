"""How fast the CPU backend of grader.backends.cuda runs kernels (figures go in
docs/cuda-cpu-backend.md).

    python benchmarks/cuda_cpu_bench.py [--repeat 5]

Prints, each against its target: a vector add of 2^20 floats (after compile, <= 0.3 s), a
1024 x 1024 shared-memory tiled transpose (<= 2 s), and loading a cached module (<= 50 ms),
plus the cold compile and a few barrier/shuffle-heavy kernels for context. Uses a scratch
cache directory, so compile times are cold and nothing lands in ~/.cache.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "cuda_kernels"

VECTOR_ADD = r"""
__global__ void vector_add_kernel(const float *__restrict__ x, const float *__restrict__ y,
                                  float *__restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + y[i];
}
"""

LOAD_IN_FRESH_PROCESS = r"""
import sys, time
from grader.backends.cuda import SourceModule
src = open(sys.argv[1]).read()
t = time.perf_counter()
mod = SourceModule(src)
mod.get_function("vector_add_kernel")
print(time.perf_counter() - t, mod.cached)
"""


def best_of(repeat: int, fn) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def report(name: str, seconds: float, target: float | None, unit: str = "s") -> None:
    scale = 1e3 if unit == "ms" else 1.0
    line = f"{name:<48} {seconds * scale:9.3f} {unit}"
    if target is not None:
        ok = "ok" if seconds <= target else "OVER TARGET"
        line += f"   (target <= {target * scale:g} {unit}: {ok})"
    print(line, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    os.environ["TCLAB_DEVICE"] = "cpu"
    os.environ.setdefault("TCLAB_CACHE", tempfile.mkdtemp(prefix="tclab-bench-"))
    sys.path.insert(0, str(ROOT))

    import numpy as np
    import torch

    from grader.backends.cuda import SourceModule, cpu

    print(f"CPU backend, {cpu.default_workers()} pool threads, cache {os.environ['TCLAB_CACHE']}")

    t = time.perf_counter()
    mod = SourceModule(VECTOR_ADD)
    report("compile vector_add (cold, incl. runtime build)", time.perf_counter() - t, None)
    add = mod.get_function("vector_add_kernel")

    n = 1 << 20
    x, y, out = torch.randn(n), torch.randn(n), torch.empty(n)

    def vector_add():
        add(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
            np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))

    vector_add()
    assert torch.equal(out, x + y)
    best, median = best_of(opts.repeat, vector_add)
    report("vector add, 2^20 floats (median)", median, 0.3)

    transpose = SourceModule((KERNELS / "transpose.cu").read_text()).get_function(
        "transpose_tiled")
    a = torch.randn(1024, 1024)
    at = torch.empty(1024, 1024)

    def tiled_transpose():
        transpose(a, at, np.int32(1024), np.int32(1024), block=(32, 8, 1), grid=(32, 32))

    tiled_transpose()
    assert torch.equal(at, a.t())
    best, median = best_of(opts.repeat, tiled_transpose)
    report("transpose 1024x1024, 32x33 shared tile (median)", median, 2.0)

    # Cached load in this process (a second SourceModule of the same source: its own copy
    # of the library, so that __device__ globals start fresh) ...
    def load():
        SourceModule(VECTOR_ADD).get_function("vector_add_kernel")

    best, median = best_of(opts.repeat, load)
    report("cached module load, same process (median)", median, 0.05, "ms")
    # ... and in a fresh interpreter, where the runtime library is loaded too.
    with tempfile.NamedTemporaryFile("w", suffix=".cu", delete=False) as f:
        f.write(VECTOR_ADD)
    runs = []
    for _ in range(3):
        res = subprocess.run([sys.executable, "-c", LOAD_IN_FRESH_PROCESS, f.name],
                             capture_output=True, text=True, check=True, env=os.environ,
                             cwd=ROOT)
        seconds, cached = res.stdout.split()
        assert cached == "True"
        runs.append(float(seconds))
    os.unlink(f.name)
    report("cached module load, fresh process (median)", statistics.median(runs), 0.05, "ms")

    print("context:")
    reduce_mod = SourceModule((KERNELS / "warp_reduce.cu").read_text())
    warp_sum = reduce_mod.get_function("warp_reduce_sum")
    total = torch.zeros(1)

    def warp_reduce():
        total.zero_()
        warp_sum(x, total, np.int32(n), block=(256, 1, 1), grid=(n // 256, 1))

    report("  warp-shuffle reduction, 2^20 floats (median)", best_of(opts.repeat, warp_reduce)[1],
           None)
    tree = SourceModule((KERNELS / "reduce_shared.cu").read_text()).get_function("reduce_sum")
    partial = torch.empty(n // 512)
    report("  shared-memory tree reduction, 2^20 (median)", best_of(opts.repeat, lambda: tree(
        x, partial, np.int32(n), block=(256, 1, 1), grid=(n // 512, 1)))[1], None)
    mm = SourceModule((KERNELS / "matmul.cu").read_text()).get_function("matmul_tiled")
    A, B, C = torch.randn(256, 256), torch.randn(256, 256), torch.empty(256, 256)
    report("  tiled matmul 256x256x256 (median)", best_of(opts.repeat, lambda: mm(
        A, B, C, np.int32(256), np.int32(256), np.int32(256), block=(16, 16, 1),
        grid=(16, 16)))[1], None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
