"""The notebook's own `check` (instant feedback in JupyterLab) rejects what the grader rejects,
with the grader's words: it decides through the same judge. These run in-process, as the
public test cells do; the grade itself comes from processes the notebook cannot reach."""

from __future__ import annotations

from pathlib import Path

import corpus_controls  # tests/ is on sys.path under pytest
import jupytext
import pytest

from grader.lab import manifest, submission
from grader.notebook import CheckFailed, check, verdicts

CORPUS = corpus_controls.CORPUS


def launcher_from(lab_id: str, impl: str, path: Path):
    """Run the lab's setup cell and the submission's cells, as a kernel would: each cell a
    file of its own in one folder, known to linecache (IPython's way; `check()` builds the
    device's kernels from those cells)."""
    import linecache
    import tempfile

    lab = manifest.get(lab_id)
    ex = lab.exercise()
    namespace: dict = {}
    folder = Path(tempfile.mkdtemp(prefix="cells-"))
    if path.is_relative_to(CORPUS):  # a control names only what differs from the solution
        path = corpus_controls.notebook(path)
    nb = jupytext.read(path) if path.suffix == ".py" else submission.read_notebook(path)
    cells = [submission.setup_source(lab),
             *submission.cell_sources(nb, ex.impls[impl].cells).values()]
    for i, source in enumerate(cells):
        name = str(folder / f"{i}.py")
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        exec(compile(source, name, "exec"), namespace)
    return lab, namespace[ex.impls[impl].launcher]


@pytest.fixture(autouse=True)
def _cpu_only(device):
    if device != "cpu":
        pytest.skip("the CPU backend's race and bounds checks")


@pytest.mark.parametrize("lab_id", ["lab01", "lab07"], ids=["vector_add", "softmax"])
def test_solution_passes(lab_id, capsys):
    lab, launcher = launcher_from(lab_id, "cuda", manifest.get(lab_id).source)
    assert check(lab.id, "cuda", launcher) is None  # a test cell shows the printed line only
    assert "shapes correct" in capsys.readouterr().out
    found = verdicts(lab.id, "cuda", launcher)
    assert [v.dtype for v in found] == list(lab.exercise().dtypes) and all(v.ok for v in found)


def test_missing_barrier_is_a_race():
    lab, launcher = launcher_from("lab07", "cuda", CORPUS / "lab07_softmax" /
                                  "cuda_missing_barrier.py")
    with pytest.raises(CheckFailed, match="depends on thread order.*__syncthreads"):
        check(lab.id, "cuda", launcher)


def test_out_of_bounds_read_names_the_kernel():
    lab, launcher = launcher_from("lab01", "cuda", CORPUS / "lab01_vector_add" /
                                  "cuda_oob_read.py")
    with pytest.raises(CheckFailed, match="out-of-bounds read in kernel vector_add_kernel"):
        check(lab.id, "cuda", launcher)


def test_stub_says_what_to_fill_in():
    lab, launcher = launcher_from("lab01", "triton", CORPUS / "lab01_vector_add" /
                                  "triton_stub.py")
    with pytest.raises(CheckFailed, match="not implemented: fill in the Triton "
                       "vector_add_kernel and its launcher vector_add_triton"):
        check(lab.id, "triton", launcher)


def test_torch_fallback_is_refused_in_the_notebook_too():
    """It used to pass the notebook's check ("7/7 shapes correct") and fail the grader."""
    lab, launcher = launcher_from("lab01", "triton", CORPUS / "lab01_vector_add" /
                                  "triton_hidden_fallback.py")
    with pytest.raises(CheckFailed, match="computed on the host: torch.ops.aten.add"):
        check(lab.id, "triton", launcher)


def test_cuda_out_of_bounds_write_gets_cuda_advice():
    lab, launcher = launcher_from("lab01", "cuda", CORPUS / "lab01_vector_add" /
                                  "cuda_no_bounds_check.py")
    with pytest.raises(CheckFailed) as info:
        check(lab.id, "cuda", launcher)
    text = str(info.value)
    assert "out-of-bounds write" in text and "if (i < n)" in text
    assert "Mask the loads" not in text and "(1 elements)" not in text
