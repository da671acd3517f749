"""Fake students, each made from a lab's release notebook by one edit.

Every function takes the release notebook (what a student fetches) and the lab, and returns
the notebook the student hands in. `EXPECT` says what the gradebook must then hold; `None`
for an implementation whose backend this machine lacks is decided by the test.

Positive controls earn their points honestly; every other student must earn nothing it did
not write, each for its own reason.
"""

from __future__ import annotations

import copy

from grader.lab import release, submission
from grader.lab.manifest import Lab

NO_SECRET = "no grading secret in this kernel"
MARKERS = {release.PY_BEGIN, release.PY_END, release.C_BEGIN, release.C_END}


def _cell(nb, grade_id: str):
    for cell in nb.cells:
        if submission.grade_id(cell) == grade_id:
            return cell
    raise KeyError(f"no cell {grade_id!r} in the release: did the lab's grade ids change?")


def _solved(lab: Lab, nb):
    """The release with every solution cell filled in as a student would: no markers left."""
    nb = copy.deepcopy(nb)
    source = submission.read_notebook(lab.source)
    for gid, src in submission.cell_sources(source, lab.solution_cells(), str(lab.source)).items():
        lines = [s for s in src.splitlines() if s.strip() not in MARKERS]
        _cell(nb, gid).source = "\n".join(lines)
    return nb


def solution(lab: Lab, nb):
    return _solved(lab, nb)


def stub(lab: Lab, nb):
    return copy.deepcopy(nb)


def skip_tags(lab: Lab, nb):
    """Stubs, grade cells tagged `skip-execution`: nbgrader alone gives full marks."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata["tags"] = ["skip-execution"]
    return nb


def input_transformer(lab: Lab, nb):
    """Stubs, and an IPython input transformer that blanks every later cell (the tests)."""
    nb = copy.deepcopy(nb)
    cell = _cell(nb, lab.exercise().impls["triton"].cells[0])
    cell.source += "\n\nget_ipython().input_transformers_cleanup.append(lambda lines: [])\n"
    return nb


def monkeypatch(lab: Lab, nb):
    """Stubs, with the comparison and the notebook's check() replaced by no-ops."""
    nb = copy.deepcopy(nb)
    cell = _cell(nb, lab.exercise().impls["triton"].cells[0])
    cell.source = ("import torch\nimport grader.notebook\n"
                   "torch.allclose = lambda *a, **k: True\n"
                   "grader.notebook.check = lambda *a, **k: None\n"
                   "check = grader.notebook.check\n\n" + cell.source)
    return nb


def patched_solution(lab: Lab, nb):
    """A correct Triton kernel that ALSO patches the checker: patching changes nothing (the
    checks run in processes the notebook cannot reach), the kernel earns its points."""
    nb = _solved(lab, nb)
    cell = _cell(nb, lab.exercise().impls["triton"].cells[0])
    cell.source = ("import grader.notebook\n"
                   "grader.notebook.check = lambda *a, **k: None\n\n" + cell.source)
    return nb


def relabelled(lab: Lab, nb):
    """Stubs; the test cells relabelled as answers, the Triton answer as a 100-point test."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta.update(grade=False, solution=True, locked=False)
            meta.pop("points", None)
    meta = _cell(nb, lab.exercise().impls["triton"].cells[0]).metadata["nbgrader"]
    meta.update(grade=True, points=100)
    return nb


def deleted_test(lab: Lab, nb):
    """A correct notebook without its Triton test cell: restored by the grader, and failed."""
    nb = _solved(lab, nb)
    nb.cells = [c for c in nb.cells if submission.grade_id(c) != "test_triton"]
    return nb


def unruly(lab: Lab, nb):
    """Correct kernels that write warnings to stderr, a cell that looks for the grading
    secret, and a last cell that kills the kernel.

    None may cost a point or leak: stderr lines are not the verdict, the kernel never holds
    the secret, and the kernel's death ends nbgrader's execution, not the grading.
    """
    nb = _solved(lab, nb)
    cell = _cell(nb, lab.exercise().impls["triton"].cells[0])
    noise = ("import sys\nimport warnings\n"
             "print('warning: a compiler note on stderr', file=sys.stderr)\n"
             "warnings.warn('a deprecation warning', DeprecationWarning, stacklevel=1)\n\n")
    cell.source = noise + cell.source.replace(
        '"""out = x + y, launched as a 1-D grid of programs."""',
        '"""out = x + y, launched as a 1-D grid of programs."""\n'
        '    print("warning: launching", file=sys.stderr)')
    snoop = f"import os\nprint(os.environ.get('TCLAB_SECRET_SEED', {NO_SECRET!r}))"
    die = "import os\nos._exit(1)  # the kernel dies here"
    for i, source in enumerate((snoop, die)):
        cell = copy.deepcopy(nb.cells[-1])
        cell.metadata, cell.source = {}, source
        cell.outputs, cell.execution_count = [], None
        cell["id"] = f"student-added-{i}"
        nb.cells.append(cell)
    return nb


SNOOP = '''
import os as _os
from pathlib import Path as _Path

_WANTED = ("gradebook.db", "secret_seed", "nbgrader_config.py", ".ipynb")


def _snoop(limit=20000):
    """Look for the course's secrets and the other students' work from the kernel's folder
    up and in the places people keep files; print each found (a path and its first bytes),
    and each writable gradebook."""
    import sys as _sys

    here = _Path.cwd()
    tops = [str(here), *map(str, here.parents), "/tmp", "/home", "/root", "/srv", "/work",
            "/var", "/mnt"]
    # The Python environment is shown to every kernel (its packages ship notebooks of their
    # own, nbgrader's tests): not what this student looks for.
    env = {p for p in _sys.path if p and _os.path.isdir(p) and p != str(here)}
    seen = 0
    for top in dict.fromkeys(tops):
        for folder, dirs, files in _os.walk(top):
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "usr", "site-packages")
                       and _os.path.join(folder, d) not in env]
            for name in files:
                seen += 1
                path = _os.path.join(folder, name)
                if name.endswith(_WANTED) and not path.startswith(str(here)):
                    try:
                        with open(path, "rb") as f:
                            head = f.read(1 << 16)
                    except OSError:
                        head = b"(unreadable)"
                    # Tools ship notebooks of their own (Nsight's recipes): a course's
                    # notebooks, its source and the submissions, carry nbgrader's metadata.
                    if name.endswith(".ipynb") and b'"nbgrader"' not in head:
                        continue
                    print("SNOOP-FOUND", path, head[:40])
                    if name == "gradebook.db":
                        try:
                            open(path, "ab").close()
                            print("SNOOP-WRITABLE", path)
                        except OSError:
                            pass
            if seen > limit:
                break
    print("SNOOP-DONE", seen)


_snoop()
'''


def snooper(lab: Lab, nb):
    """A correct notebook whose Triton cell walks the file system for the gradebook, the
    secret seed, the course's source notebooks and the other students' submissions, and
    prints what it finds: it must find nothing, and lose no point for looking."""
    nb = _solved(lab, nb)
    cell = _cell(nb, lab.exercise().impls["triton"].cells[0])
    cell.source = SNOOP + "\n\n" + cell.source
    return nb


# student -> (lab, make, {grade cell: "full" | 0}); perf cells score 0 on the CPU for everyone.
# No student name holds a lab id: `pytest -k lab01` is the student's command, not ours.
LAB01, LAB07 = "lab01_vector_add", "lab07_softmax"
STUDENTS = {
    "solution": (LAB01, solution, {"test_triton": "full", "test_cuda": "full"}),
    "stub": (LAB01, stub, {"test_triton": 0, "test_cuda": 0}),
    "skip_tags": (LAB01, skip_tags, {"test_triton": 0, "test_cuda": 0}),
    "input_transformer": (LAB01, input_transformer, {"test_triton": 0, "test_cuda": 0}),
    "monkeypatch": (LAB01, monkeypatch, {"test_triton": 0, "test_cuda": 0}),
    "relabelled": (LAB01, relabelled, {"test_triton": 0, "test_cuda": 0}),
    "patched_solution": (LAB01, patched_solution, {"test_triton": "full", "test_cuda": "full"}),
    "snooper": (LAB01, snooper, {"test_triton": "full", "test_cuda": "full"}),
    "deleted_test": (LAB01, deleted_test, {"test_triton": 0, "test_cuda": "full"}),
    "unruly": (LAB01, unruly, {"test_triton": "full", "test_cuda": "full"}),
    "softmax_solution": (LAB07, solution, {"test_triton": "full", "test_cuda": "full"}),
    "softmax_stub": (LAB07, stub, {"test_triton": 0, "test_cuda": 0}),
}
