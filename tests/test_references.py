"""The references' tuning tables (`TUNE` in reference/**/*.py, read by
benchmarks/tune_references.py): every name is a constant of that module, and the value checked
in is one of its candidates, so a sweep starts from what is graded against."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from grader.base import paths
from grader.lab import manifest

FILES = sorted(p for p in paths.REFERENCE.glob("lab*/*.py") if "TUNE = " in p.read_text())


def module_constants(tree: ast.Module) -> dict:
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:  # not a literal (a path, a dict of torch dtypes)
                pass
    return found


def test_some_references_are_tunable():
    assert len(FILES) >= 10, [p.name for p in FILES]


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name[:5]}-{p.stem}" for p in FILES])
def test_tune_names_constants_and_holds_their_value(path):
    consts = module_constants(ast.parse(path.read_text()))
    tune = consts["TUNE"]
    assert tune, f"{path.name}: TUNE is empty"
    for name, candidates in tune.items():
        assert name in consts, f"{path.name}: TUNE names {name}, which the module never sets"
        assert consts[name] in candidates, (f"{path.name}: {name} = {consts[name]} is not among "
                                            f"its candidates {candidates}")


# Each reference against the oracle, in one process per lab set up as a grading worker is.
# Without a GPU (Triton under the interpreter, CUDA C on the CPU backend): its exercise's three
# smallest public shapes of more than one element, every dtype. A reference edited for speed
# must still be right, and grading times it on its perf shapes only. On a GPU: every public
# and hidden shape, every dtype; code under __CUDA_ARCH__ (lab03's 16-bit pairs) runs there
# only.
REFERENCE_CHECK = r"""
import ast, sys
from grader.backends import interpreter
lab_id, device, *overrides = sys.argv[1:]  # NAME=value, set where a launcher has NAME; and
every = "SHAPES=all" in overrides  # every public and hidden shape on the CPU too
interpreter.ensure(device)  # as a worker does
from grader.lab import cases, manifest, reference
on = "cuda" if device == "gpu" else "cpu"
wrong, runs = [], 0
for ex in manifest.get(lab_id).exercises:
    if device == "gpu" or every:
        shapes = [(suite, s) for suite in ("public", "hidden") for s in ex.shapes[suite]]
    else:
        size = lambda s: sum(ex.numel(t, s) for t in ex.outputs)
        shapes = [("public", s) for s in sorted((s for s in ex.shapes["public"] if size(s) > 1),
                                                key=size)[:3]]
    for impl in ex.impls:
        fn = reference.load(ex, impl)
        for name, value in (o.split("=", 1) for o in overrides if o != "SHAPES=all"):
            if name in fn.__globals__:
                fn.__globals__[name] = ast.literal_eval(value)
        for dtype in ex.dtypes:
            for index, (suite, shape) in enumerate(shapes):
                case = cases.Case(suite, index, shape, dtype, 11 + index)
                inputs = cases.make_inputs(ex, shape, case.seed, dtype, on)
                buffers, outs = cases.alloc_outputs(ex, shape, dtype, on)
                fn(*inputs.values(), *outs.values(), *ex.param_values(shape).values())
                runs += 1
                for name, want in cases.oracle(ex, inputs, shape).items():
                    problem = cases.compare(ex, case, name, buffers[name], want, impl)
                    if problem:  # guards included: a reference must not write past its output
                        wrong.append(f"{impl} reference: {problem}")
print(f"{runs} runs:", "\n".join(wrong) or "every reference matches the oracle")
sys.exit(1 if wrong else 0)
"""

LABS = sorted(manifest.registry())


def reference_check(lab_id: str, device: str, *overrides: str) -> None:
    """overrides: NAME=VALUE, a launcher's constant, or an environment variable where NAME
    starts with TCLAB_."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(o.split("=", 1) for o in overrides if o.startswith("TCLAB_"))
    overrides = tuple(o for o in overrides if not o.startswith("TCLAB_"))
    proc = subprocess.run([sys.executable, "-c", REFERENCE_CHECK, lab_id, device, *overrides],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{lab_id}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("lab_id", LABS, ids=[lab_id[6:] for lab_id in LABS])
def test_reference_matches_the_oracle_on_the_cpu(lab_id):
    reference_check(lab_id, "cpu")


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("lab_id", LABS, ids=[lab_id[6:] for lab_id in LABS])
def test_reference_matches_the_oracle_on_the_gpu(lab_id):
    """Every public and hidden shape, dtype and special value (lab03 and lab08 on an H200,
    2026-12-03: 324 runs, run as a script before it became this test)."""
    reference_check(lab_id, "gpu")


@pytest.mark.slow
@pytest.mark.parametrize("overrides", [("D64_TILES=1", "D128_TILES=1"),
                                       ("D64_TILES=1", "D64_WARPS=8", "D128_TILES=1",
                                        "D128_WARPS=4"),
                                       ("D64_WS=True", "D128_WS=False", "HEAVY_FIRST=False"),
                                       ("WS_BLOCK_N=64", "WS_NUM_STAGES=3"),
                                       ("BLOCK_TILES=False", "WMMA_WARPS=4", "WMMA_BN=32",
                                        "WMMA_STAGES=3", "TAIL=True", "COMBINE_VEC=1"),
                                       ("BLOCK_TILES=False", "WMMA_WARPS=2", "WMMA_BN=16",
                                        "WMMA_STAGES=2", "WMMA_PROGRAMS_PER_SM=4",
                                        "COMBINE_CHUNK=2"),
                                       ("FUSED_COMBINE=False", "WMMA_PROGRAMS_PER_SM=4",
                                        "BLOCK_TILES=False"),
                                       ("TCLAB_WMMA_LAYOUT=mma",),
                                       ("SPLIT_ALIGN=16", "PROGRAMS_PER_SM=3"),
                                       ("TCLAB_WMMA_LAYOUT=mma", "RESCALE_SLACK=0.0"),
                                       ("FUSED_COMBINE=True", "SPLIT_ALIGN=16"),
                                       ("BLOCK_TILES=False", "WMMA_WARPS=4", "WMMA_BN=32",
                                        "P_IN_REGISTERS=False"),
                                       ("BLOCK_TILES=False", "CLAIM_TILES=1", "WMMA_STAGES=3",
                                        "HEADS_FIRST=True", "TAIL=True"),
                                       ("BLOCK_TILES=False", "CLAIM_TILES=2",
                                        "FUSED_COMBINE=False", "WMMA_WARPS=2"),
                                       ("BLOCK_BN=128", "COMBINE_VEC=1"),
                                       ("BLOCK_TILES=True", "BLOCK_WARPS=2", "BLOCK_BN=64",
                                        "BLOCK_STAGES=2", "FUSED_COMBINE=False",
                                        "SPLIT_ALIGN=16")],
                         ids=["attention-cuda-one-tile", "attention-cuda-warps",
                              "attention-triton-ws-natural-order", "attention-triton-ws-64-keys",
                              "flash_decode-3-stages", "flash_decode-small-chunked-combine",
                              "flash_decode-two-launches", "attention-cuda-quad-shuffles",
                              "flash_decode-splits-inside-tiles",
                              "attention-cuda-quad-eager-rescale",
                              "flash_decode-fused-combines-split-inside-tiles",
                              "flash_decode-p-through-shared-memory",
                              "flash_decode-units-taken-in-turn",
                              "flash_decode-units-taken-in-turn-two-launches",
                              "flash_decode-one-pipeline-a-block",
                              "flash_decode-one-pipeline-a-block-two-launches"])
def test_each_design_lab16s_sweep_can_pick_matches_the_oracle_on_the_cpu(overrides):
    """lab16's references have designs their sweep chooses among (CUDA attention's warps and query
    tiles a warp; Triton attention's D64_WS, D128_WS, the warp-specialized kernel's tiles and
    stages, and HEAVY_FIRST; CUDA flash_decode's split pass, a pipeline a warp (its warps, tiles,
    stages and splits, p through shared memory as where the fragment maps differ, its keys in
    units that warps take in turn from a count) or one a block (its warps sharing each swizzled
    tile), and its combine fused (merging splits in chunks, 4 adjacent elements a thread or one)
    or not; Triton flash_decode's splits ending inside a tile, and its combine fused or not;
    CUDA attention's softmax through quad shuffles, which the GPU's fragment map takes, and the CPU
    backend's only where it emulates that map, its rescale lazy or at every move); the checked-in
    ones run in the test above, the others here on every public and hidden shape (the q-scaled ones
    move the max between K/V tiles, which only a right rescale of each row survives), so that a
    sweep never picks a wrong kernel for being fast."""
    reference_check("lab16_attention", "cpu", "SHAPES=all", *overrides)


MLP_PAIRED = r"""
import sys, tempfile
from pathlib import Path
import torch
from grader.backends import interpreter
interpreter.ensure("cpu")
from grader.lab import manifest, reference
lab = manifest.get("lab15_fused_linear")
ex = next(e for e in lab.exercises if e.name == "mlp")
if sys.argv[1] == "reference":
    mlp = reference.load(ex, "triton")
    paired = mlp.__globals__["paired"]
else:  # the notebook's solution, imported as the tune tool imports it
    sys.path.insert(0, "benchmarks")
    from tune_references import solution_launchers
    mlp = solution_launchers(lab, Path(tempfile.mkdtemp()))["mlp", "triton"]
    paired = None
torch.manual_seed(0)
m, d, f = 136, 64, 40  # more than DECODE_ROWS rows: the TMA path
x = torch.randn(m, d).bfloat16()
both = (torch.randn(2, f, d) / 8).bfloat16()
w_down = (torch.randn(d, f) / 8).bfloat16()
for name, w_gate, w_up, kind in (("gate below up", both[0], both[1], (f * d, False)),
                                 ("up below gate", both[1], both[0], (f * d, True)),
                                 ("one tensor for both", both[0], both[0], None)):
    if paired:
        got = paired(w_gate, w_up)
        assert (got and got[1:]) == kind, (name, got and got[1:])
    y = torch.empty(m, d).bfloat16()
    mlp(x, w_gate, w_up, w_down, y)
    h = torch.nn.functional.silu(x.float() @ w_gate.float().T) * (x.float() @ w_up.float().T)
    err = (y.float() - h.bfloat16().float() @ w_down.float().T).abs().max().item()
    assert err < 0.03, (name, err)
wide = torch.zeros(f, 2 * d).bfloat16()[:, :d]
assert paired is None or paired(both[0], wide) is None  # rows 2 d apart in one, d in the other
print("ok")
"""


@pytest.mark.slow
@pytest.mark.parametrize("which", ["reference", "solution"])
def test_mlp_reads_gate_and_up_as_one_tensor_whichever_lies_lower(which):
    """lab15's Triton mlp reference and the notebook's solution read w_gate and w_up as one
    [f, 2, d] tensor from the lower of the two (their distance as a stride; the solution's
    kernel takes it from the two pointers): gate below up, up below gate (the sums swapped
    back) and one tensor passed as both (no distance: the pointer kernels) each match torch on
    the CPU. Grading allocates the weights in one order, so its shapes may see one case."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", MLP_PAIRED, which], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]


DECODE_PARTS = r"""
import torch
from grader.backends import interpreter
interpreter.ensure("cpu")
from benchmarks import decode_parts as dp
dp.B, dp.HQ, dp.HKV, dp.S, dp.D = 1, 8, 2, 512, 64  # its shapes, small enough for the CPU
torch.manual_seed(0)
q = torch.randn(1, 8, 64).bfloat16()
k, v = torch.randn(2, 1, 2, 512, 64).bfloat16()
o = torch.empty_like(q)
want = (torch.softmax(q.float().unflatten(1, (2, -1)) @ k.float().transpose(-1, -2) / 8, -1)
        @ v.float()).flatten(1, 2)
for stem, plans, names in (("flash_decode_triton", dp.PLANS, dp.NAMES),
                           ("flash_decode_cuda", dp.CUDA_PLANS, dp.CUDA_NAMES)):
    ref = dp.reference(stem)
    for name, value in zip(names, plans[0]):
        setattr(ref, name, value)
    fns = dp.parts(ref, getattr(ref, stem), q, k, v, o, 4)
    fns["split pass"]()
    o.zero_()
    fns["call"]()
    assert (o.float() - want).abs().max() < 2e-2, stem
    assert abs(dp.error(q, k, v, o) - (o.float() - want).abs().max().item()) < 1e-3, stem
print("ok")
"""


def test_decode_parts_times_the_references_call_and_split_pass():
    """benchmarks/decode_parts.py (a GPU probe) times each flash_decode reference's call and
    its split pass alone (the references' `plan` and `split_pass`): on the CPU, at a small
    shape, both parts of both references launch and the call matches the oracle, so that a
    change of those functions breaks this test, not the next GPU call."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", DECODE_PARTS], env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]


def test_decode_timeline_finds_the_places_it_stamps():
    """benchmarks/decode_timeline.py (a GPU probe) stamps a copy of the CUDA flash_decode
    kernel at places it finds by their text: each is there once, and on the CPU the probe says
    it needs a GPU."""
    code = ("from benchmarks import decode_parts as dp, decode_timeline as dt\n"
            "src = dp.reference('flash_decode_cuda').WMMA_SOURCE\n"
            "out = dt.patched_source(src)\n"
            "assert out.count('= now();') == 5\n"
            "dt.main()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "skipped: needs a GPU" in proc.stdout
