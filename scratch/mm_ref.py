"""lab10 CUDA float16 reference at several constants vs cuBLAS and the solution (+ variants)."""
import sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import tune_references as T
from grader import bench, manifest, reference, submission
exec(open(Path(__file__).parent / "variants_lab10_mm.py").read().split("VARIANTS = ")[0])
b = T.Bench()
lab = manifest.get("lab10")
ex = lab.exercise("matmul_fp16")
ref = reference.load(ex, "cuda")
g = T.constants(ref)
nb = submission.read_notebook(lab.source)
src = {}
for e in lab.exercises:
    for spec in e.impls.values():
        src.update(submission.cell_sources(nb, spec.cells))
folder = Path(tempfile.mkdtemp())
sols = {}
for name, subs in {"sol": [], "bk64dyn": V2}.items():
    s2 = dict(src)
    for old, new in subs:
        for k in s2:
            s2[k] = s2[k].replace(old, new)
    mod = submission.import_module(submission.write_module(submission.setup_source(lab), s2, folder, "m_" + name), "m_" + name)
    sols[name] = getattr(mod, ex.impls["cuda"].launcher)
CONFIGS = [("128x256_2x4", 64, 3, 16), ("128x128_2x4", 32, 3, 16), ("128x128_2x4", 64, 3, 16),
           ("128x128_2x2", 64, 3, 16), ("128x128_2x4", 64, 2, 16), ("256x128_4x2", 32, 3, 16)]
for shape in ex.shapes["perf"]:
    for tile, bk, st, gm in CONFIGS:
        g.update(TILE=tile, BK=bk, STAGES=st, GROUP_M=gm)
        ms = b.interleaved(ex, shape, "float16", {"cublas": bench.baseline_op(ex), "ref": ref, **sols})
        r = {k: b.gbps(ex, shape, "float16", v) for k, v in ms.items()}
        print(f"{ex.describe(shape)} {tile} BK{bk} ST{st}: cublas {r['cublas']:.0f} ref {r['ref']:.0f} ({r['ref']/r['cublas']:.3f}x) "
              f"sol {r['sol']:.0f} ({r['sol']/r['ref']:.3f}) bk64dyn {r['bk64dyn']:.0f} ({r['bk64dyn']/r['ref']:.3f})", flush=True)
