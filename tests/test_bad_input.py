"""Bad input is a verdict, not a crash: an unreadable notebook, an empty file, a missing or
retyped solution cell, a `.py` without cells. Each gets one line per exercise and
implementation, results.json is written, the exit code is 1, and later labs are still graded."""

from __future__ import annotations

import json

import nbformat
import pytest

from grader import cli
from grader.lab import manifest, submission

LAB = manifest.get("lab01")
EX = LAB.exercise()


def released() -> dict:
    return json.loads(LAB.exercise_path.read_text())


def _without(gid: str):
    nb = released()
    nb["cells"] = [c for c in nb["cells"] if submission.grade_id(c) != gid]
    return json.dumps(nb)


def _as_markdown(gid: str):
    nb = released()
    for cell in nb["cells"]:
        if submission.grade_id(cell) == gid:
            cell["cell_type"] = "markdown"
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
    return json.dumps(nb)


CUDA_SOURCE_CELL, CUDA_LAUNCHER_CELL = EX.impls["cuda"].cells
TRITON_CELL = EX.impls["triton"].cells[0]
CASES = {
    # name: (file name, content, {impl: (status, phrase)})
    "corrupt": ("lab01_vector_add.ipynb", '{"cells": [',
                {"triton": ("unreadable", "not a valid notebook"),
                 "cuda": ("unreadable", "not a valid notebook")}),
    "empty": ("lab01_vector_add.ipynb", "",
              {"triton": ("unreadable", "the file is empty"),
               "cuda": ("unreadable", "the file is empty")}),
    "no_cells": ("lab01_vector_add.py", 'print("my notes")\n',
                 {"triton": ("unreadable", "holds no graded cells"),
                  "cuda": ("unreadable", "holds no graded cells")}),
    "missing_cell": ("lab01_vector_add.ipynb", _without(CUDA_SOURCE_CELL),
                     {"cuda": ("missing", "the cell defining VECTOR_ADD_CU is missing"),
                      "triton": ("not_implemented", "fill in")}),
    "markdown_cell": ("lab01_vector_add.ipynb", _as_markdown(TRITON_CELL),
                      {"triton": ("missing", "is no longer a code cell"),
                       "cuda": ("not_implemented", "fill in")}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_check_gives_a_verdict_and_writes_results(name, tmp_path, device, capsys):
    file, content, expect = CASES[name]
    path = tmp_path / file
    path.write_text(content)
    results = tmp_path / "results.json"
    code = cli.main(["check", "lab01", "--submission", str(path), "--results", str(results),
                     "--device", device])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "Traceback" not in out
    grades = {g["impl"]: g for g in json.loads(results.read_text())["results"]}
    for impl, (status, phrase) in expect.items():
        assert grades[impl]["status"] == status, grades[impl]["reason"]
        assert phrase in grades[impl]["reason"], grades[impl]["reason"]
        assert "\n" not in grades[impl]["reason"]


def test_a_bad_lab_does_not_stop_the_next(tmp_path, device, capsys):
    """A folder of notebooks: lab01's is corrupt, lab07's is the released stub."""
    (tmp_path / LAB.id).mkdir()
    LAB.release_path(tmp_path).write_text('{"cells": [')
    other = manifest.get("lab07")
    other.release_path(tmp_path).parent.mkdir()
    nbformat.write(nbformat.read(other.exercise_path, as_version=4),
                   other.release_path(tmp_path))
    results = tmp_path / "results.json"
    assert cli.main(["check", "lab01", "lab07", "--submission", str(tmp_path), "--results",
                     str(results), "--device", device]) == 1
    statuses = {(g["lab"], g["impl"]): g["status"]
                for g in json.loads(results.read_text())["results"]}
    assert statuses[(LAB.id, "triton")] == "unreadable"
    assert statuses[(other.id, "triton")] == "not_implemented"


def test_read_notebook_never_raises_anything_else(tmp_path):
    for content in (b"\x00\xff\xfe", b"[]", b'{"nbformat": 4}', b"null"):
        path = tmp_path / "x.ipynb"
        path.write_bytes(content)
        with pytest.raises(submission.SubmissionError):
            submission.read_notebook(path)


def test_cli_verbose_prints_details_without_markup(tmp_path, device, capsys):
    from corpus_controls import CORPUS, notebook

    path = notebook(CORPUS / "lab01_vector_add" / "triton_python_exception.py")
    cli.main(["check", "lab01", "--submission", str(path), "--results",
              str(tmp_path / "r.json"), "--device", device, "-v"])
    out = capsys.readouterr().out
    assert "[bold]" not in out and "[/]" not in out
    assert "TypeError" in out
