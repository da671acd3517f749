"""Every lab notebook, run headless exactly as a student's JupyterLab runs it.

A fresh `python3` kernel (nbclient), started in the notebook's folder, with nothing preset:
no TRITON_INTERPRET, TCLAB_DEVICE or TCLAB_SECRET_SEED. So the notebook itself must pick the
device and, without a GPU, switch Triton to its interpreter - whatever the student's cells
imported first. Tests that import grader in-process cannot see this: pytest's process has
usually set the interpreter up long before.

    pytest tests/test_notebooks_run.py -k lab07     # one lab's notebooks
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import nbformat
import pytest

from grader.lab import manifest, release

pytestmark = pytest.mark.slow

LABS = sorted(manifest.registry())
CELL_TIMEOUT_S = 600
UNSET = ("TRITON_INTERPRET", "TCLAB_DEVICE", "TCLAB_SECRET_SEED")
# Its Triton kernel calls tl.max, one of triton.language's own @jit helpers: the helpers are
# built once, at import, so an import of triton before the interpreter is on breaks them.
IMPORT_ORDER_LAB = "lab07_softmax"


def _has_gpu() -> bool:
    import torch

    return torch.cuda.is_available()


def _student_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in UNSET}


def _run(nb, path: Path, allow_errors: bool):
    """Execute `nb` as JupyterLab would open it at `path`; return the executed notebook."""
    from nbclient import NotebookClient

    nbformat.write(nb, path)
    for attempt in range(2):
        client = NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT_S,
                                allow_errors=allow_errors,
                                resources={"metadata": {"path": str(path.parent)}})
        try:
            client.execute(env=_student_env())
            return nb
        except RuntimeError as exc:
            # Seen once in a full run (two pytest workers starting kernels side by side):
            # the kernel died before its first reply, before any cell ran. A kernel start is
            # no part of what these tests check; a second death is reported.
            if attempt or "before replying to kernel_info" not in str(exc):
                raise
            proc = getattr(getattr(client.km, "provisioner", None), "process", None)
            warnings.warn(f"kernel died at start (exit {getattr(proc, 'returncode', '?')}): "
                          "started once more", stacklevel=2)


def _gid(cell) -> str:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "")


def _name(nb, i: int) -> str:
    gid = _gid(nb.cells[i])
    return f"cell {i}" + (f" ({gid})" if gid else "")


def _text(cell, stream: str | None = None) -> str:
    """A code cell's outputs as text: streams (only `stream` if given), results, errors."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream" and stream in (None, out.get("name")):
            parts.append(out.get("text", ""))
        elif kind == "error" and stream is None:
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
        elif kind in ("execute_result", "display_data") and stream is None:
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "".join(parts).strip()


def _errors(nb) -> dict[int, str]:
    """{cell index: 'EName: value'} of every cell that raised."""
    return {i: "\n".join(f"{o.get('ename')}: {o.get('evalue')}" for o in c.get("outputs", [])
                         if o.get("output_type") == "error")
            for i, c in enumerate(nb.cells)
            if any(o.get("output_type") == "error" for o in c.get("outputs", []))}


def _assert_solution_ran(nb, where: str) -> None:
    """No cell raised; test cells printed 'shapes correct', bench cells ran or said why not.

    One error is by design: without a GPU a perf cell's hidden `bench(..., graded=True)`
    raises "not graded: needs a GPU" (perf is graded on a GPU only)."""
    gpu = _has_gpu()
    errors = {i: text for i, text in _errors(nb).items()
              if gpu or not (_gid(nb.cells[i]).startswith("perf_")
                             and text.endswith("not graded: needs a GPU"))}
    assert not errors, f"{where}: cells raised:\n" + "\n".join(
        f"- {_name(nb, i)}: {text}" for i, text in errors.items())
    for i, cell in enumerate(nb.cells):
        gid, out = _gid(cell), _text(cell)
        if gid.startswith("test_"):
            assert "shapes correct" in out, (
                f"{where}: {_name(nb, i)} should print '... shapes correct'; it printed:\n"
                f"{out or '(nothing)'}")
        if gid.startswith("perf_") and not gpu:
            assert "skipped: needs a GPU" in out, (
                f"{where}: {_name(nb, i)} should say 'skipped: needs a GPU' on a CPU; it "
                f"printed:\n{out or '(nothing)'}")
        stderr = _text(cell, "stderr")
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            assert not stderr, (f"{where}: {_name(nb, i)} wrote to stderr, and nbgrader scores a "
                                f"grade cell with any stderr 0:\n{stderr}")


@pytest.mark.parametrize("lab_id", LABS)
def test_solution_notebook_runs(lab_id, tmp_path):
    """The lab's solutions (hidden tests included) pass every check in a fresh kernel."""
    lab = manifest.get(lab_id)
    nb = _run(release.source_notebook(lab), tmp_path / lab.notebook_name, allow_errors=True)
    _assert_solution_ran(nb, f"{lab_id} solution notebook")


@pytest.mark.parametrize("lab_id", LABS)
def test_released_stub_says_fill_in(lab_id, tmp_path):
    """The notebook a student gets runs top to bottom; each test cell fails with 'fill in'."""
    lab = manifest.get(lab_id)
    assert lab.exercise_path.exists(), f"{lab.exercise_path} is missing: run `tclab release`"
    nb = _run(nbformat.read(lab.exercise_path, as_version=4), tmp_path / lab.notebook_name,
              allow_errors=True)
    errors = _errors(nb)
    tests = [i for i, c in enumerate(nb.cells) if _gid(c).startswith("test_")]
    assert tests, f"{lab.exercise_path}: no grade cell named test_*"
    for i in tests:
        assert "fill in" in errors.get(i, ""), (
            f"{lab_id} stub: {_name(nb, i)} should fail with 'not implemented: fill in ...'; "
            f"its output:\n{_text(nb.cells[i]) or '(nothing)'}")
    gpu = _has_gpu()
    for i, text in errors.items():
        cell = nb.cells[i]
        solution = cell.get("metadata", {}).get("nbgrader", {}).get("solution")
        stubbed = (solution or (gpu and _gid(cell).startswith("perf_"))) \
            and "NotImplementedError" in text
        assert i in tests or stubbed, (
            f"{lab_id} stub: {_name(nb, i)} raised, and only test cells (or a stub's own "
            f"NotImplementedError) may:\n{text}")


def _triton_first(nb):
    """The solution notebook with its setup cell's triton imports moved above everything."""
    setup = next(c for c in nb.cells if c.cell_type == "code")
    lines = setup.source.splitlines()
    first = [ln for ln in lines if ln.strip().startswith(("import triton", "from triton"))]
    assert first, f"{IMPORT_ORDER_LAB}: the setup cell imports no triton:\n{setup.source}"
    setup.source = "\n".join(first + [ln for ln in lines if ln not in first])
    return nb


def _triton_cell_first(nb):
    """The solution notebook with a new first code cell, `import triton`, before the setup."""
    at = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    nb.cells.insert(at, nbformat.v4.new_code_cell("import triton"))
    return nb


def _triton_part(lab, nb):
    """The notebook without its CUDA and perf cells: the interpreter is all these tests are
    about, and the CUDA C part (the CPU backend) took two thirds of a run's time."""
    keep = {"setup", "test_triton"} | {gid for ex in lab.exercises
                                       for gid in ex.impls["triton"].cells}
    nb.cells = [c for c in nb.cells if c.cell_type != "code" or not _gid(c) or _gid(c) in keep]
    return nb


@pytest.mark.parametrize("variant", [_triton_first, _triton_cell_first],
                         ids=["setup_imports_triton_first", "triton_cell_before_setup"])
def test_triton_imported_before_grader(variant, tmp_path):
    """An earlier `import triton` must not break the Triton interpreter (tl.max and co.)."""
    if IMPORT_ORDER_LAB not in LABS:
        pytest.skip(f"{IMPORT_ORDER_LAB} is not in the registry")
    lab = manifest.get(IMPORT_ORDER_LAB)
    if _has_gpu():
        pytest.skip("with a GPU Triton compiles: the interpreter is not involved")
    nb = _triton_part(lab, variant(release.source_notebook(lab)))
    nb = _run(nb, tmp_path / lab.notebook_name, allow_errors=True)
    _assert_solution_ran(nb, f"{IMPORT_ORDER_LAB} solution, {variant.__doc__.strip()}")


REPAIR = textwrap.dedent("""
    import torch
    import triton
    import triton.language as tl
    from triton.language import constexpr
    from grader.backends import interpreter
    before = id(tl)
    interpreter.ensure("cpu")
    assert id(tl) != before and constexpr is tl.constexpr, "names not rebound"
    assert not interpreter.needs_repair(), "triton.language still compiled-mode"

    @triton.jit
    def row_max(x_ptr, out_ptr, n, BLOCK: constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
        tl.store(out_ptr, tl.max(x, axis=0))

    x, out = torch.randn(10), torch.empty(1)
    row_max[(1,)](x, out, 10, BLOCK=16)
    assert out.item() == x.max().item(), (out, x)
    print("repaired", triton.__version__)
""")


def test_ensure_repairs_an_earlier_triton_import(tmp_path):
    """grader.backends.interpreter.ensure('cpu') on its own, in a fresh process (a repair cannot be
    undone in this one): triton imported first, a kernel calling tl.max still runs."""
    if _has_gpu():
        pytest.skip("the repair is for the CPU interpreter")
    proc = subprocess.run([sys.executable, "-c", REPAIR], env=_student_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "repaired" in proc.stdout, (
        f"ensure('cpu') after `import triton` (exit {proc.returncode}):\n{proc.stdout}\n"
        f"{proc.stderr[-3000:]}")
