"""The notebook's own `check` (instant feedback in JupyterLab) rejects what the grader rejects.

These run in-process, as the public test cells do; the grade itself comes from the runner.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import manifest, submission
from grader.notebook import CheckFailed, check

CORPUS = Path(__file__).parent / "corpus"


def launcher_from(lab_id: str, impl: str, path: Path):
    """Run the lab's setup cell and the submission's cells, as a kernel would."""
    lab = manifest.get(lab_id)
    namespace: dict = {}
    exec(submission.setup_source(lab), namespace)
    for source in submission.solution_sources(lab, impl, path).values():
        exec(source, namespace)
    return lab, namespace[lab.impls[impl].launcher]


@pytest.fixture(autouse=True)
def _cpu_only(device):
    if device != "cpu":
        pytest.skip("the CPU backend's race and bounds checks")


@pytest.mark.parametrize("lab_id", ["lab01", "lab07"], ids=["vector_add", "softmax"])
def test_solution_passes(lab_id, capsys):
    lab, launcher = launcher_from(lab_id, "cuda", manifest.get(lab_id).source)
    check(lab.id, "cuda", launcher)
    assert "shapes correct" in capsys.readouterr().out


def test_missing_barrier_is_a_race():
    lab, launcher = launcher_from("lab07", "cuda", CORPUS / "lab07_softmax" /
                                  "cuda_missing_barrier.py")
    with pytest.raises(CheckFailed, match="depends on thread order.*__syncthreads"):
        check(lab.id, "cuda", launcher)


def test_out_of_bounds_read_names_the_kernel():
    from grader.cuda import LaunchError

    lab, launcher = launcher_from("lab01", "cuda", CORPUS / "lab01_vector_add" /
                                  "cuda_oob_read.py")
    with pytest.raises(LaunchError, match="out-of-bounds read in kernel vector_add_kernel"):
        check(lab.id, "cuda", launcher)


def test_stub_says_what_to_fill_in():
    lab, launcher = launcher_from("lab01", "triton", CORPUS / "lab01_vector_add" /
                                  "triton_stub.py")
    with pytest.raises(CheckFailed, match="not implemented: fill in vector_add_kernel"):
        check(lab.id, "triton", launcher)
