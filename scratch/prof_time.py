import os, subprocess, sys, time, shutil
sys.path.insert(0, os.getcwd())
from grader.judge import profile as pr
from grader import grading, manifest, submission
ncu = shutil.which("ncu")
def t(cmd, **kw):
    s = time.monotonic(); p = subprocess.run(cmd, capture_output=True, text=True, **kw); return round(time.monotonic()-s, 2), p
print("python torch cuda init:", t([sys.executable, "-c", "import torch; torch.zeros(1,device='cuda'); torch.cuda.synchronize()"])[0])
print("ncu + same:", t([ncu, "--profile-from-start", "off", sys.executable, "-c", "import torch; torch.zeros(1,device='cuda'); torch.cuda.synchronize()"])[0])
prog = "import torch,time; x=torch.randn(1<<26,device='cuda'); y=torch.empty_like(x); y.copy_(x); torch.cuda.synchronize(); torch.cuda.profiler.start(); y.copy_(x); torch.cuda.synchronize(); torch.cuda.profiler.stop()"
print("ncu full metrics one copy kernel:", t(pr.flags(ncu) + [sys.executable, "-c", prog])[0])
print("ncu dram only:", t([ncu, "--profile-from-start", "off", "--metrics", pr.READ_BYTES + "," + pr.WRITE_BYTES, sys.executable, "-c", prog])[0])
lab = manifest.get("lab01"); nb = submission.read_notebook(lab.source)
ex, _, src = grading.plan(lab, nb, "x", "gpu", impls=["triton"])[0]
for sb in ("1", "0"):
    os.environ["TCLAB_SANDBOX"] = sb
    from grader import sandbox; sandbox.available.cache_clear()
    s = time.monotonic(); got = pr.run(ex, "triton", src); print("pr.run sandbox", sb, round(time.monotonic()-s, 2), got.get("seconds"), got.get("reason"))
old = pr.METRICS[:]
pr.METRICS[:] = [pr.READ_BYTES, pr.WRITE_BYTES]
s = time.monotonic(); got = pr.run(ex, "triton", src); print("pr.run 2 metrics", round(time.monotonic()-s, 2))
pr.METRICS[:] = old
# the case making cost in the parent
from grader import check
shape, dtype = pr.case(ex)
s = time.monotonic(); inputs, layouts = check.make_values(ex, shape, check.seed_for("a", "b", 0), dtype); print("make_values", shape, round(time.monotonic()-s, 2))
