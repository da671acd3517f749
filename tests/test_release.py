"""The student release: up to date, free of solutions, and every stub fails with one clear line."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from grader import grading, manifest, paths, release

LABS = list(manifest.registry().values())
# Named by op, not lab id: `pytest -k lab01` is the student's command and selects only
# tests/test_labs.py, which checks their notebook; these check the release itself.
IDS = [f"release-{lab.id[6:]}" for lab in LABS]


@pytest.mark.parametrize("lab", LABS, ids=IDS)
def test_exercises_are_what_release_writes(lab):
    assert not release.stale(lab, paths.EXERCISES), f"run `tclab release`: {lab.id} is stale"


@pytest.mark.parametrize("lab", LABS, ids=IDS)
def test_release_holds_no_solution_or_hidden_test(lab):
    text = lab.exercise_path.read_text()
    for marker in (release.PY_BEGIN, release.C_BEGIN, release.HIDDEN_BEGIN, "suite=\"hidden\"",
                   "graded=True", "jupytext"):
        assert marker not in text, f"{lab.exercise_path.name} leaks {marker!r}"


@pytest.mark.parametrize("lab", LABS, ids=IDS)
def test_every_stub_fails_with_one_line(lab, device, shared_servers):
    grades = grading.grade_notebook(lab, lab.exercise_path, device, perf=False)
    assert {(g.exercise, g.impl) for g in grades} == {
        (ex.key, impl) for ex in lab.exercises for impl in ex.impls}
    for g in grades:
        assert g.status == "not_implemented", g.reason
        spec = manifest.exercise(g.exercise).impls[g.impl]
        assert g.reason.startswith("not implemented: fill in") and spec.kernel in g.reason
        assert spec.launcher in g.reason and "\n" not in g.reason


def test_c_stub_keeps_the_signature_and_compiles():
    lab = manifest.get("lab01")
    nb = release.student_notebook(lab)
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") ==
               "vector_add_cu"]
    assert "// YOUR CODE HERE" in cell.source and "__global__ void vector_add_kernel" in cell.source
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not found")
    namespace: dict = {}
    exec(cell.source, namespace)
    src = next(v for k, v in namespace.items() if k.endswith("_CU"))
    proc = subprocess.run(["nvcc", "-x", "cu", "-arch=sm_90", "-c", "-o", "/dev/null", "-"],
                          input=src, capture_output=True, text=True)  # no_extern_c=True
    assert proc.returncode == 0, proc.stderr


def test_unbalanced_markers_are_refused():
    with pytest.raises(release.ReleaseError, match="never closed"):
        release.strip_solutions("x = 1\n    ### BEGIN SOLUTION\n    y = 2\n")
    with pytest.raises(release.ReleaseError, match="without"):
        release.strip_solutions("/// END SOLUTION\n")


def test_python_stub_keeps_indentation():
    src = "def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION\n"
    assert release.strip_solutions(src) == (
        "def f():\n    # YOUR CODE HERE\n    raise NotImplementedError()")
