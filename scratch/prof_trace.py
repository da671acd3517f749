import os, subprocess, sys, time, shutil, tempfile
os.environ["TCLAB_TRACE"] = "1"
sys.path.insert(0, os.getcwd())
from grader.judge import profile as pr
from grader.judge import correctness
from grader import grading, manifest, submission, check, runner
ncu = shutil.which("ncu")

def show(label, t0, out):
    print(f"--- {label}")
    for ln in out.output.splitlines():
        if ln.startswith("tclab-trace"):
            _, ts, what = ln.split(" ", 2); print(f"  {float(ts)-t0:7.2f} {what}")
    print(f"  {time.time()-t0:7.2f} parent saw the end (seconds {out.seconds})")

lab = manifest.get("lab01"); nb = submission.read_notebook(lab.source)
for impl in ("triton", "cuda"):
    ex, _, src = grading.plan(lab, nb, "x", "gpu", impls=[impl])[0]
    shape, dtype = pr.case(ex)
    t0 = time.time()
    inputs, layouts = check.make_values(ex, shape, 1, dtype)
    print("make_values", round(time.time()-t0, 2))
    prepared = [correctness.Prepared(check.Case("profile", 0, shape, dtype, 1), inputs, {}, layouts)]
    for wrap in (pr.flags(ncu), None):
        req = grading._request(ex, impl, "gpu", "check", src, dtype=dtype, profile=wrap is not None)
        t0 = time.time()
        out = grading._converse(req, prepared, lambda *_: True, 120, wrapper=wrap)
        show(f"{impl} {'ncu' if wrap else 'plain'} (unserved)", t0, out)
    # small case, served twice
    small = correctness.prepare(ex, ["public"], "float32")[:1]
    with runner.session():
        for k in range(2):
            req = grading._request(ex, impl, "gpu", "check", src, dtype="float32")
            t0 = time.time()
            out = grading._converse(req, small, lambda *_: True, 120)
            show(f"{impl} small served #{k}", t0, out)
d = tempfile.mkdtemp()
t0 = time.time()
subprocess.run([sys.executable, "-c", "import torch, triton; torch.cuda.init(); triton.runtime.driver.active.utils; print('ok')"], env={**os.environ, "TRITON_CACHE_DIR": d})
print("triton driver, cold cache:", round(time.time()-t0, 2))
t0 = time.time()
subprocess.run([sys.executable, "-c", "import torch, triton; torch.cuda.init(); triton.runtime.driver.active.utils; print('ok')"], env={**os.environ, "TRITON_CACHE_DIR": d})
print("triton driver, warm cache:", round(time.time()-t0, 2))
t0 = time.time()
subprocess.run([sys.executable, "-c", "import torch"])
print("import torch:", round(time.time()-t0, 2))
t0 = time.time()
subprocess.run([sys.executable, "-c", "import torch; torch.cuda.init()"])
print("import torch + cuda init:", round(time.time()-t0, 2))
t0 = time.time()
subprocess.run([sys.executable, "-c", "import torch, triton, grader.judge.correctness, grader.audit, grader.tamper"])
print("import torch triton grader:", round(time.time()-t0, 2))
