"""The references' tuning tables (`TUNE` in reference/**/*.py, read by
benchmarks/tune_references.py): every name is a constant of that module, and the value checked
in is one of its candidates, so a sweep starts from what is graded against."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

from grader import manifest, paths

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


# Each reference against the oracle without a GPU (Triton under the interpreter, CUDA C on the
# CPU backend), on its exercise's three smallest public shapes of more than one element, every
# dtype: a reference edited for speed must still be right, and grading times it on its perf
# shapes only. One process per lab, set up for the CPU as a grading worker is. On a GPU the
# test after it checks every public and hidden shape: code under __CUDA_ARCH__ (lab03's 16-bit
# pairs) runs there only.
REFERENCE_CHECK = r"""
import sys
from grader import interpreter
interpreter.ensure("cpu")  # as a worker does
from grader import check, manifest, reference
lab = manifest.get(sys.argv[1])
wrong = []
for ex in lab.exercises:
    size = lambda s: sum(ex.numel(t, s) for t in ex.outputs)
    shapes = sorted((s for s in ex.shapes["public"] if size(s) > 1), key=size)[:3]
    for impl in ex.impls:
        fn = reference.load(ex, impl)
        for dtype in ex.dtypes:
            for index, shape in enumerate(shapes):
                case = check.Case("public", index, shape, dtype, 7)
                inputs = check.make_inputs(ex, shape, case.seed, dtype)
                buffers, outs = check.alloc_outputs(ex, shape, dtype)
                fn(*inputs.values(), *outs.values(), *ex.param_values(shape).values())
                for name, want in check.oracle(ex, inputs, shape).items():
                    problem = check.compare(ex, case, name, buffers[name], want, impl)
                    if problem:  # guards included: a reference must not write past its output
                        wrong.append(f"{impl} reference: {problem}")
print("\n".join(wrong) or "every reference matches the oracle")
sys.exit(1 if wrong else 0)
"""

LABS = sorted(manifest.registry())


@pytest.mark.slow
@pytest.mark.parametrize("lab_id", LABS, ids=[lab_id[6:] for lab_id in LABS])
def test_reference_matches_the_oracle_on_the_cpu(lab_id):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", REFERENCE_CHECK, lab_id], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{lab_id}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


REFERENCE_CHECK_GPU = r"""
import sys
from grader import check, manifest, reference
lab = manifest.get(sys.argv[1])
wrong, runs = [], 0
for ex in lab.exercises:
    shapes = [(suite, shape) for suite in ("public", "hidden") for shape in ex.shapes[suite]]
    for impl in ex.impls:
        fn = reference.load(ex, impl)
        for dtype in ex.dtypes:
            for index, (suite, shape) in enumerate(shapes):
                case = check.Case(suite, index, shape, dtype, 11 + index)
                inputs = check.make_inputs(ex, shape, case.seed, dtype, "cuda")
                buffers, outs = check.alloc_outputs(ex, shape, dtype, "cuda")
                fn(*inputs.values(), *outs.values(), *ex.param_values(shape).values())
                runs += 1
                for name, want in check.oracle(ex, inputs, shape).items():
                    problem = check.compare(ex, case, name, buffers[name], want, impl)
                    if problem:
                        wrong.append(f"{impl} reference: {problem}")
print(f"{runs} runs:", "\n".join(wrong) or "every reference matches the oracle")
sys.exit(1 if wrong else 0)
"""


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("lab_id", LABS, ids=[lab_id[6:] for lab_id in LABS])
def test_reference_matches_the_oracle_on_the_gpu(lab_id):
    """Every public and hidden shape, dtype and special value (lab03 and lab08 on an H200,
    2026-12-03: 324 runs, run as a script before it became this test)."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TCLAB_DEVICE"] = "gpu"
    proc = subprocess.run([sys.executable, "-c", REFERENCE_CHECK_GPU, lab_id], env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{lab_id}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
