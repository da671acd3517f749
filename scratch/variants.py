"""Time variants of a lab's solution cells (text substitutions) against the reference."""
import sys, tempfile, statistics
from pathlib import Path
import torch
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import tune_references as T
from grader import bench, manifest, reference, submission

import json, os
exec(open(Path(__file__).parent / "variants_lab10_mm.py").read().split("VARIANTS = ")[0])
TB = [tuple(p) for p in json.load(open(Path(__file__).parent / "lab08_tbwd_pairs.json"))]
VARIANTS = {
    ("lab10_matmul", "matmul_fp16", "triton"): {"base": [], "tile256": [("128, 128, 64, 8", "128, 256, 64, 8")],
                                               "tile256_g16": [("128, 128, 64, 8", "128, 256, 64, 16")]},
    ("lab10_matmul", "matmul_fp16", "cuda"): {"base": [], "one_barrier": V1, "bk64_dynamic": V2},
    ("lab08_layernorm", "layernorm_backward", "triton"): {"base": [], "prefetch": TB},
}
ONLY = os.environ.get("ONLY")
TUNED = json.load(open(os.environ["TUNED"]))["labs"] if os.environ.get("TUNED") else {}


def main():
    b = T.Bench()
    print(torch.cuda.get_device_name(), "roof", round(b.roof), flush=True)
    folder = Path(tempfile.mkdtemp())
    for (lab_id, exn, impl), variants in VARIANTS.items():
        if ONLY and ONLY not in lab_id:
            continue
        lab = manifest.get(lab_id)
        ex = lab.exercise(exn)
        nb = submission.read_notebook(lab.source)
        sources = {}
        for e in lab.exercises:
            for spec in e.impls.values():
                sources.update(submission.cell_sources(nb, spec.cells))
        ref = reference.load(ex, impl)
        g = T.constants(ref)
        for key, vals in TUNED.get(lab_id, {}).get("tuned", {}).items():
            if g["__file__"].endswith(key):
                g.update(vals)
                print("constants", key, vals, flush=True)
        for vname, subs in variants.items():
            srcs = dict(sources)
            for old, new in subs:
                hits = [k for k, v in srcs.items() if old in v]
                assert hits, (vname, old)
                for k in hits:
                    srcs[k] = srcs[k].replace(old, new)
            name = f"var_{lab_id}_{exn}_{vname}"
            mod = submission.import_module(submission.write_module(submission.setup_source(lab), srcs, folder, name), name)
            fn = getattr(mod, ex.impls[impl].launcher)
            for dtype in ex.perf_dtypes:
                for shape in ex.shapes["perf"]:
                    ok = b.correct(ex, shape, dtype, fn)
                    r = [b.ms(ex, shape, dtype, ref) for _ in range(2)]
                    s = [b.ms(ex, shape, dtype, fn) for _ in range(2)]
                    ref_ms, sol_ms = statistics.median(r), statistics.median(s)
                    print(f"{lab_id} {exn} {impl} {vname:10} {dtype} {ex.describe(shape)}: "
                          f"ref {b.gbps(ex, shape, dtype, ref_ms):.0f} sol {b.gbps(ex, shape, dtype, sol_ms):.0f} "
                          f"GB/s ratio {ref_ms / sol_ms:.3f} correct={ok}", flush=True)


main() if "--flush-only" not in sys.argv else None


def flush_experiment():
    """The L2 flush as a write (zero_) vs as a read (max): the timed kernel's GB/s."""
    from grader import check
    b = T.Bench()
    lab = manifest.get("lab04_gated_units")
    for exn, impl in (("swiglu", "triton"), ("swiglu", "cuda"), ("swiglu_packed", "triton"), ("swiglu_packed", "cuda")):
        ex = lab.exercise(exn)
        ref = reference.load(ex, impl)
        for shape in ex.shapes["perf"]:
            for mode in ("write", "read", "write", "read"):
                if mode == "read":
                    b.timer.flush = lambda: b.timer.flush_buf.max()
                else:
                    b.timer.flush = lambda: b.timer.zero(b.timer.flush_buf)
                ms = b.ms(ex, shape, "bfloat16", ref)
                print(f"flush={mode:5} {exn} {impl} {ex.describe(shape)}: {b.gbps(ex, shape, 'bfloat16', ms):.0f} GB/s", flush=True)

