"""The student release: up to date, free of solutions, and every stub fails with one clear line."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from grader import cli
from grader.base import paths
from grader.lab import manifest, release
from grader.pipeline import grading

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


HINT = "<details><summary>Hint"


def hints(nb) -> int:
    """The progressive hints of a notebook: `<details>` blocks in its markdown cells."""
    return sum(c.source.count(HINT) for c in nb.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("lab", LABS, ids=IDS)
def test_every_release_gives_progressive_hints(lab):
    """A student stuck on a lab opens hints one at a time (at least four a lab; labs 02-12
    have 6-16), each a `<details>` block that ends before the solution would begin."""
    import nbformat

    nb = nbformat.read(lab.exercise_path, as_version=4)
    assert hints(nb) >= 4, f"{lab.id}: {hints(nb)} hints"
    stripped = nbformat.v4.new_notebook(cells=[c for c in nb.cells if HINT not in c.source])
    assert hints(stripped) == 0  # the control: a notebook without them counts none


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


# --- a notebook edited in the release tree is never lost ------------------------------------
# Each test releases lab01 into a folder of its own (`tmp_path`), edits it there as a student
# would, and runs the release again; the real exercises/ is only read.

WORK = "# MY WORK: a kernel I wrote"


def _released(tmp_path, monkeypatch):
    """lab01 released into tmp_path/exercises (`paths.EXERCISES` for `tclab release`), with an
    empty workspace beside it; the lab and its notebook's path."""
    out = tmp_path / "exercises"
    monkeypatch.setattr(paths, "EXERCISES", out)
    monkeypatch.setattr(paths, "WORKSPACE", tmp_path / "workspace")
    lab = manifest.get("lab01")
    assert release.release_tree([lab], out).problems == []
    return lab, lab.release_path(out)


def _edit(path):
    """Fill the first stub as a student does in JupyterLab (nbformat's JSON, saved)."""
    nb = json.loads(path.read_text())
    cell = next(c for c in nb["cells"] if "raise NotImplementedError()" in "".join(c["source"]))
    cell["source"] = [WORK + "\n"]
    path.write_text(json.dumps(nb, indent=1))


def _tclab_release(capsys, *args):
    rc = cli.main(["release", "lab01", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_release_is_stamped_and_the_stamp_verifies():
    text = release.render(release.student_notebook(manifest.get("lab01")))
    assert release.as_released(text)
    assert not release.as_released(text.replace("raise NotImplementedError()", "x = 1", 1))
    assert not release.as_released(text.replace(f'"{release.STAMP_KEY}"', '"other"'))


def test_an_edited_notebook_is_left_with_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    lab, path = _released(tmp_path, monkeypatch)
    _edit(path)
    mine = path.read_bytes()
    rc, out, err = _tclab_release(capsys)
    assert rc == 1 and path.read_bytes() == mine
    (line,) = err.splitlines()
    assert str(path) in line and "edited" in line and "--force" in line, line
    assert f"workspace/{lab.id}" in line.replace(str(tmp_path) + "/", ""), line
    assert out == ""
    assert list(path.parent.iterdir()) == [path], "no copy without --force"


def test_force_releases_over_an_edit_and_keeps_it_beside(tmp_path, monkeypatch, capsys):
    lab, path = _released(tmp_path, monkeypatch)
    _edit(path)
    mine = path.read_bytes()
    rc, out, err = _tclab_release(capsys, "--force")
    backup = path.with_name(f"{lab.id}.edited.ipynb")
    assert rc == 0 and err == ""
    assert backup.read_bytes() == mine and WORK in backup.read_text()
    assert f"your copy is {backup}" in out, out
    assert release.state(lab, path.parent.parent) == release.CURRENT
    _edit(path)  # a second forced release keeps the first copy too
    assert _tclab_release(capsys, "--force")[0] == 0
    assert backup.read_bytes() == mine and WORK in backup.with_name(
        f"{lab.id}.edited-2.ipynb").read_text()


def test_an_untouched_earlier_release_is_replaced(tmp_path, monkeypatch, capsys):
    """The control: a stale notebook that nobody edited is what the release is for."""
    lab, path = _released(tmp_path, monkeypatch)
    nb = release.student_notebook(lab)
    nb.cells[0].source += "\n\nAn earlier wording."
    path.write_text(release.render(nb))
    assert release.state(lab, path.parent.parent) == release.STALE
    rc, out, err = _tclab_release(capsys)
    assert rc == 0 and err == "" and f"wrote {path}" in out
    assert "An earlier wording" not in path.read_text()


def test_check_names_an_edit_and_never_advises_a_release(tmp_path, monkeypatch, capsys):
    lab, path = _released(tmp_path, monkeypatch)
    rc, out, err = _tclab_release(capsys, "--check")
    assert (rc, err, out.strip()) == (0, "", "exercises/ matches labs/: 1 lab, 1 notebook")
    _edit(path)
    mine = path.read_bytes()
    rc, out, err = _tclab_release(capsys, "--check")
    (line,) = err.splitlines()
    assert rc == 1 and path.read_bytes() == mine
    assert str(path) in line and "edited" in line and "git checkout" in line, line
    assert "tclab release" not in line and "--force" not in line, line


def test_check_asks_for_a_release_where_one_is_due(tmp_path, monkeypatch, capsys):
    lab, path = _released(tmp_path, monkeypatch)
    path.unlink()
    rc, out, err = _tclab_release(capsys, "--check")
    assert rc == 1 and not path.exists()
    assert err.strip() == f"exercises/ is out of date for {lab.id}: run `tclab release`"
