"""`tclab new`: the scaffold writes a complete lab that releases and grades as any lab does.

Everything happens in a fresh project root (`tmp_path`, an empty `labs/`): the library calls
take `root=`, and the command line runs in a subprocess with `TCLAB_ROOT` pointing there (the
grader reads its folders from it at import time).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
from test_corpus import header  # tests/ is on sys.path under pytest

from grader.base import paths
from grader.lab import manifest, release, scaffold

LAB_ID = "lab42_twice"
OP = "twice"
CHECKOUT = Path(scaffold.__file__).resolve().parents[2]
FILES = [f"labs/{LAB_ID}/lab.toml", f"labs/{LAB_ID}/{LAB_ID}.py",
         f"reference/{LAB_ID}/{OP}_triton.py", f"reference/{LAB_ID}/{OP}_cuda.py",
         f"tests/corpus/{LAB_ID}/triton_stub.py",
         f"tests/corpus/{LAB_ID}/cuda_no_bounds_check.py"]
CELLS = ["setup", f"{OP}_triton", f"{OP}_cu", f"{OP}_cuda", "test_triton", "test_cuda",
         "perf_triton", "perf_cuda"]

pytestmark = pytest.mark.xdist_group("scaffold")  # one scaffolded lab


def _root(tmp: Path) -> Path:
    (tmp / "labs").mkdir(parents=True)
    return tmp


def _grade_ids(nb) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]


def _tree(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*")}


def tclab(root: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`tclab ARGS` in a subprocess whose project root is `root`."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["TCLAB_ROOT"] = str(root)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "grader.cli", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=timeout)


# --- the scaffold itself, in process --------------------------------------------------------

def test_new_writes_a_lab_whose_manifest_loads(tmp_path):
    root = _root(tmp_path)
    written = scaffold.new(LAB_ID, root=root)
    assert [p.relative_to(root).as_posix() for p in written] == FILES
    for path in written:
        text = path.read_text()
        if path.name != "triton_stub.py":  # the stub control is the release's cell: nothing to do
            assert "TODO(instructor)" in text, f"{path.name}: nothing marks what to replace"
        assert "${" not in text, f"{path.name}: a template placeholder is left"
        if path.suffix == ".py":
            ast.parse(text, str(path))
    lab = manifest.load(root / "labs" / LAB_ID / "lab.toml")
    assert manifest.registry(root / "labs") == {LAB_ID: lab}
    assert lab.title == "Twice" and lab.source == written[1]
    (ex,) = lab.exercises
    assert (ex.name, ex.oracle, ex.work, ex.unit) == (OP, "2 * x", "itemsize * 2 * n", "bytes")
    assert ex.dtypes == ("float32",) and ex.tolerances == {"float32": (1e-6, 1e-6)}
    assert ex.points == {"triton": 3, "cuda": 3, "perf_triton": 2, "perf_cuda": 2}
    assert [s["n"] for s in ex.shapes["public"]] == [1, 127, 128, 1000, 129]
    assert [s["n"] for s in ex.shapes["hidden"]] == [2, 4097, 65537, 3]
    assert [s["n"] for s in ex.shapes["gpu"]] == [16777219, 1048577]
    assert [s["n"] for s in ex.shapes["perf"]] == [2**28]
    assert max(s["n"] for s in ex.shapes["sweep"]) == 2**28 and len(ex.shapes["sweep"]) > 2
    assert ex.impls["triton"] == manifest.Impl("triton", f"{OP}_triton", f"{OP}_kernel",
                                               (f"{OP}_triton",))
    assert ex.impls["cuda"] == manifest.Impl("cuda", f"{OP}_cuda", f"{OP}_kernel",
                                             (f"{OP}_cu", f"{OP}_cuda"))


def test_notebook_has_the_cells_of_a_lab(tmp_path):
    root = _root(tmp_path)
    scaffold.new(LAB_ID, root=root)
    lab = manifest.load(root / "labs" / LAB_ID / "lab.toml")
    nb = jupytext.read(lab.source)
    assert _grade_ids(nb) == CELLS
    cells = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
             if "nbgrader" in c.metadata}
    assert f'LAB = "{LAB_ID}"' in cells["setup"]
    assert f"def {OP}_kernel(" in cells[f"{OP}_triton"]
    assert f"def {OP}_triton(" in cells[f"{OP}_triton"]
    assert cells[f"{OP}_cu"].startswith(f'{OP.upper()}_CU = r"""')
    assert f"__global__ void {OP}_kernel(" in cells[f"{OP}_cu"]
    assert f"def {OP}_cuda(" in cells[f"{OP}_cuda"]
    for impl in ("triton", "cuda"):
        launcher = f"{OP}_{impl}"
        assert cells[f"test_{impl}"] == (
            f'check(LAB, "{impl}", {launcher})\n{release.HIDDEN_BEGIN}\n'
            f'check(LAB, "{impl}", {launcher}, suite="hidden")\n{release.HIDDEN_END}')
        assert cells[f"perf_{impl}"] == (
            f'bench(LAB, "{impl}", {launcher})\n{release.HIDDEN_BEGIN}\n'
            f'bench(LAB, "{impl}", {launcher}, graded=True)\n{release.HIDDEN_END}')


def test_setup_cell_is_the_labs_own(tmp_path):
    """The locked setup cell is the existing labs' (row softmax's), but for `LAB`."""
    model = paths.LABS / "lab07_softmax" / "lab07_softmax.py"
    if not model.exists():
        pytest.skip("the model lab is not in this checkout")
    root = _root(tmp_path)
    scaffold.new(LAB_ID, root=root)

    def setup(path: Path) -> str:
        (cell,) = [c for c in jupytext.read(path).cells
                   if c.metadata.get("nbgrader", {}).get("grade_id") == "setup"]
        return cell.source

    want = setup(model).replace('LAB = "lab07_softmax"', f'LAB = "{LAB_ID}"')
    assert setup(root / "labs" / LAB_ID / f"{LAB_ID}.py") == want


def test_release_strips_solutions_and_is_then_current(tmp_path):
    root = _root(tmp_path)
    scaffold.new(LAB_ID, root=root)
    lab = manifest.registry(root / "labs")[LAB_ID]
    nb = release.student_notebook(lab)
    assert _grade_ids(nb) == CELLS
    points = {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
              for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}
    assert points == {"test_triton": 3, "test_cuda": 3, "perf_triton": 2, "perf_cuda": 2}
    text = release.render(nb)
    for marker in (release.PY_BEGIN, release.C_BEGIN, release.HIDDEN_BEGIN, 'suite=\\"hidden\\"',
                   "graded=True", "2.0f * x[i]", "2.0 * x"):
        assert marker not in text, f"the release leaks {marker!r}"
    (cu,) = [c.source for c in nb.cells
             if c.metadata.get("nbgrader", {}).get("grade_id") == f"{OP}_cu"]
    assert "// YOUR CODE HERE" in cu and f"__global__ void {OP}_kernel(" in cu
    out = root / "exercises"
    assert release.stale(lab, out)
    path = release.release(lab, out)
    assert path == out / LAB_ID / f"{LAB_ID}.ipynb" and not release.stale(lab, out)


def test_title_is_written_as_given(tmp_path):
    root = _root(tmp_path)
    scaffold.new("lab03_row_sum", title='Row sums, "fast"', root=root)
    lab = manifest.load(root / "labs" / "lab03_row_sum" / "lab.toml")
    assert lab.title == 'Row sums, "fast"'
    assert '# # Lab 03 — Row sums, "fast", in Triton and in CUDA C' in lab.source.read_text()
    scaffold.new("lab04_row_max", root=root)
    assert manifest.load(root / "labs" / "lab04_row_max" / "lab.toml").title == "Row max"


def test_python_files_keep_to_the_line_length_with_a_long_op(tmp_path):
    """`ruff check tests` lints tests/corpus/ (line length 100): a long op must not break it."""
    lab_id = "lab05_" + "layer_norm_backward_fused_x"
    written = scaffold.new(lab_id, root=_root(tmp_path))
    for path in written[2:]:  # the references and the negative controls
        long = [ln for ln in path.read_text().splitlines() if len(ln) > 100]
        assert not long, f"{path.name}: {long}"


@pytest.mark.parametrize("lab_id", ["lab1_x", "lab123_x", "lab13", "lab13_", "Lab13_x",
                                    "lab13_Scale", "lab13-x", "lab13_x-y", "lab13_2x",
                                    "lab13_x/y", " lab13_x"])
def test_a_bad_id_is_refused(tmp_path, lab_id):
    root = _root(tmp_path)
    with pytest.raises(scaffold.ScaffoldError) as info:
        scaffold.new(lab_id, root=root)
    assert "\n" not in str(info.value)
    assert _tree(root) == {Path("labs")}


@pytest.mark.parametrize("taken", ["labs/lab42_other", "labs/lab42_twice",
                                   "reference/lab42_twice", "tests/corpus/lab42_twice"])
def test_a_taken_number_or_folder_is_refused(tmp_path, taken):
    root = _root(tmp_path)
    (root / taken).mkdir(parents=True)
    before = _tree(root)
    with pytest.raises(scaffold.ScaffoldError, match=taken.split("/")[-1]) as info:
        scaffold.new(LAB_ID, root=root)
    assert "\n" not in str(info.value)
    assert _tree(root) == before, "a refused scaffold wrote something"


def test_a_title_of_several_lines_is_refused(tmp_path):
    with pytest.raises(scaffold.ScaffoldError):
        scaffold.new(LAB_ID, title="one\ntwo", root=_root(tmp_path))


# --- the command line, end to end -----------------------------------------------------------

@pytest.mark.slow
def test_cli_refuses_with_exit_code_2_and_one_line(tmp_path):
    root = _root(tmp_path)
    (root / "labs" / "lab42_other").mkdir()
    for lab_id in ("lab4_twice", LAB_ID):
        proc = tclab(root, "new", lab_id)
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert proc.stderr.startswith("tclab new: ")
    assert _tree(root) == {Path("labs"), Path("labs/lab42_other")}


# Session scope: under xdist a group's tests may interleave with other modules' on its
# worker, and pytest tears a module fixture down whenever the next test is elsewhere.
@pytest.fixture(scope="session")
def scaffolded(tmp_path_factory):
    """A project root holding only the scaffolded lab, written by `tclab new`, and released."""
    root = _root(tmp_path_factory.mktemp("scaffold"))
    proc = tclab(root, "new", LAB_ID)
    assert proc.returncode == 0, proc.stderr
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("wrote ")] == [
        f"wrote {f}" for f in FILES]
    return root


@pytest.mark.slow
def test_cli_release_then_release_check(scaffolded):
    proc = tclab(scaffolded, "release")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"wrote exercises/{LAB_ID}/{LAB_ID}.ipynb"
    proc = tclab(scaffolded, "release", "--check")
    assert proc.returncode == 0, proc.stderr


def _check(root: Path, submission: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    results = root / "results" / f"{submission}.json"
    proc = tclab(root, "check", LAB_ID, "--submission", submission, "--device", "cpu",
                 "--results", str(results), "--plots", str(root / "results"))
    assert results.exists(), f"no results.json (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    return proc, json.loads(results.read_text())["results"]


@pytest.mark.slow
def test_cli_check_of_the_released_stubs_says_not_implemented(scaffolded):
    if not (scaffolded / "exercises" / LAB_ID / f"{LAB_ID}.ipynb").exists():
        assert tclab(scaffolded, "release").returncode == 0
    proc, results = _check(scaffolded, "exercises")
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert sorted(r["impl"] for r in results) == ["cuda", "triton"]
    for r in results:
        assert r["status"] == "not_implemented", r["reason"]
        assert r["reason"].startswith("not implemented: fill in"), r["reason"]
        assert f"{OP}_kernel" in r["reason"] and f"{OP}_{r['impl']}" in r["reason"]


@pytest.mark.slow
def test_cli_check_of_the_solutions_passes(scaffolded):
    proc, results = _check(scaffolded, "solutions")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert sorted(r["impl"] for r in results) == ["cuda", "triton"]
    for r in results:
        assert r["status"] == "pass" and r["correct"] and r["passed"] == r["total"] > 0, r


# The negative controls get the verdict their header names (as tests/test_corpus.py checks
# for the real labs), graded in the scaffolded root.
GRADE_CONTROL = r"""
import json, sys
from pathlib import Path
from corpus_controls import notebook
from grader.lab import manifest
from grader.pipeline import grading
path = Path(sys.argv[1]); impl = sys.argv[2]
(g,) = grading.grade_notebook(manifest.get(path.parent.name), notebook(path), "cpu",
                              impls=[impl], perf=False)
bad = g.first_failure
print(json.dumps({"status": bad.status if bad else "pass", "reason": g.reason}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("control", ["triton_stub", "cuda_no_bounds_check"])
def test_negative_controls_get_their_verdict(scaffolded, control):
    path = scaffolded / "tests" / "corpus" / LAB_ID / f"{control}.py"
    want = header(path)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(TCLAB_ROOT=str(scaffolded), TCLAB_DEVICE="cpu",
               PYTHONPATH=os.pathsep.join(filter(None, [str(CHECKOUT), str(CHECKOUT / "tests"),
                                                        env.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", GRADE_CONTROL, str(path), want["impl"][0]],
                          cwd=scaffolded, env=env, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, proc.stderr[-3000:]
    got = json.loads(lines[-1])
    assert got["status"] == want["status"][0], got
    for phrase in want["reason"]:
        assert phrase in got["reason"], (phrase, got["reason"])
