"""Sweep the reference kernels' launch constants on a GPU and compare with torch.

    python benchmarks/tune_references.py [--json out.json]

GB/s = the manifest's minimum bytes / median time (CUDA events, L2 flushed before each call).
Prints one table per lab; the chosen constants go into reference/*/ with a pointer to
docs/perf.md. Needs a GPU.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics

import torch

from grader import bench, check, manifest, reference

ROUNDS = 10


def measure(ex, shape, fn, timer, dtype="float32", rounds=ROUNDS) -> float:
    inputs = check.make_inputs(ex, shape, 1234, dtype, "cuda")
    _, outs = check.alloc_outputs(ex, shape, dtype, "cuda")
    for _ in range(bench.WARMUP):
        fn(*inputs.values(), *outs.values())
    ms = statistics.median(timer.time(fn, *inputs.values(), *outs.values())
                           for _ in range(rounds))
    return ex.work_amount(shape, check.DTYPES[dtype].itemsize) / (ms * 1e6)


def sweep_lab01(timer) -> list[dict]:
    ex = manifest.exercise("lab01")
    shape = ex.shapes["perf"][0]
    rows = []
    for dtype in ex.perf_dtypes:
        rows.append({"variant": f"{dtype} torch.add",
                     "gbps": measure(ex, shape, bench.baseline_op(ex), timer, dtype)})
        tri = reference.load(ex, "triton").__globals__
        for block, warps in itertools.product((1024, 2048, 4096), (4, 8)):
            tri["BLOCK_SIZE"], tri["NUM_WARPS"] = block, warps
            rows.append({"variant": f"{dtype} triton BLOCK_SIZE={block} num_warps={warps}",
                         "gbps": measure(ex, shape, tri["vector_add_triton"], timer, dtype)})
        cu = reference.load(ex, "cuda")
        g = cu.__globals__
        for vec, threads in itertools.product((1, 2, 4), (128, 256, 512)):
            g["THREADS"] = threads
            rows.append({"variant": f"{dtype} cuda VEC={vec} THREADS={threads}",
                         "gbps": measure(ex, shape, lambda *a, v=vec, f=cu: f(*a, vec=v), timer,
                                         dtype)})
    return rows


def sweep_lab07(timer) -> list[dict]:
    lab = manifest.exercise("lab07")
    rows = []
    for shape in lab.shapes["perf"]:
        tag = f"{shape['n_rows']}x{shape['n_cols']}"
        rows.append({"variant": f"{tag} torch.softmax",
                     "gbps": measure(lab, shape, bench.baseline_op(lab), timer)})
        tri = reference.load(lab, "triton")
        g = tri.__globals__
        base = g["config"]
        for warps in (4, 8, 16):
            g["config"] = lambda n, w=warps, b=base: (b(n)[0], w, b(n)[2])
            rows.append({"variant": f"{tag} triton num_warps={warps}",
                         "gbps": measure(lab, shape, tri, timer)})
        g["config"] = base
        cu = reference.load(lab, "cuda")
        for target in (128, 256, 512, 1024):
            cu.__globals__["THREADS_TARGET"] = target
            plan = cu.__globals__["plan"](shape["n_cols"])
            rows.append({"variant": f"{tag} cuda THREADS_TARGET={target} plan={plan}",
                         "gbps": measure(lab, shape, cu, timer)})
    return rows


def sweep_lab07_solution(timer) -> list[dict]:
    """The lab's own CUDA solution (labs/lab07_softmax) at several block sizes."""
    import numpy as np

    from grader import submission
    from grader.cuda import SourceModule

    lab = manifest.exercise("lab07")
    cells = submission.cell_sources(submission.read_notebook(manifest.get("lab07").source),
                                    ("softmax_cu",))
    namespace: dict = {}
    exec(cells["softmax_cu"], namespace)
    fn = SourceModule(namespace["SOFTMAX_CU"]).get_function("softmax_kernel")
    rows = []
    for shape in lab.shapes["perf"]:
        for threads in (128, 256, 512, 1024):
            def launch(x, out, t=threads):
                fn(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(x.shape[1]),
                   np.int32(x.stride(0)), block=(t, 1, 1), grid=(x.shape[0], 1), shared=4 * t)
            rows.append({"variant": f"{shape['n_rows']}x{shape['n_cols']} lab solution "
                         f"threads={threads}", "gbps": measure(lab, shape, launch, timer)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json")
    args = parser.parse_args()
    timer = bench.Timer()
    roof = bench.copy_roof()["gbps"]
    out = {"roof_gbps": roof, "gpu": torch.cuda.get_device_name()}
    print(f"{out['gpu']}: copy roof {roof:.0f} GB/s")
    for name, fn in (("lab01_vector_add", sweep_lab01), ("lab07_softmax", sweep_lab07),
                     ("lab07_softmax_solution", sweep_lab07_solution)):
        rows = fn(timer)
        out[name] = rows
        print(f"\n{name}")
        for r in rows:
            print(f"  {r['variant']:<60} {r['gbps']:7.0f} GB/s  {100 * r['gbps'] / roof:5.1f}%")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
