"""The reference's perf times kept per GPU (`grading.reference_times`): a grading run measures
each reference once per TCLAB_REFERENCE_MAX_AGE seconds on a GPU instead of once per
submission; measured again when too old, on another GPU, near the bar, or when not allowed."""

from __future__ import annotations

import time

import pytest

from grader.backends import bench
from grader.base import paths
from grader.execution import runner
from grader.judge.verdict import Message, Outcome
from grader.lab import manifest
from grader.pipeline import grading

EX = manifest.get("lab01").exercise()
PLAN = {"dtypes": ["float32"], "repeat": 1, "sweep": True}


@pytest.fixture
def measured(monkeypatch, tmp_path):
    """Every reference run this test asked the runner for, each with new times."""
    runs = []

    def run(request, timeout, **_):
        assert request.role == "reference" and not request.sources
        runs.append(request)
        return Outcome(messages=[Message(event="perf", suite="perf", index=0, dtype="float32",
                                         times={"reference": [float(len(runs))] * 3})])

    monkeypatch.setattr(runner, "run", run)
    monkeypatch.setattr(paths, "CACHE", tmp_path)
    monkeypatch.setattr(bench, "gpu_id", lambda: "NVIDIA H200 GPU-aaaa")
    return runs


def times(messages):
    return [m.times for m in messages]


def test_without_a_max_age_every_check_measures_its_reference(measured, monkeypatch):
    monkeypatch.delenv(grading.REFERENCE_MAX_AGE_ENV, raising=False)
    first = grading.reference_times(EX, "triton", PLAN, None)
    second = grading.reference_times(EX, "triton", PLAN, None)
    assert len(measured) == 2 and times(first) != times(second)


def test_a_kept_reference_serves_the_next_check_on_the_same_gpu(measured, monkeypatch):
    monkeypatch.setenv(grading.REFERENCE_MAX_AGE_ENV, "600")
    first = grading.reference_times(EX, "triton", PLAN, None)
    second = grading.reference_times(EX, "triton", PLAN, None)
    assert len(measured) == 1 and times(first) == times(second) == [{"reference": [1.0] * 3}]
    grading.reference_times(EX, "cuda", PLAN, None)  # another reference: its own times
    grading.reference_times(EX, "triton", {**PLAN, "sweep": False}, None)  # another plan
    assert len(measured) == 3


def test_the_reference_is_measured_again_when_too_old_elsewhere_or_asked(measured,
                                                                         monkeypatch):
    monkeypatch.setenv(grading.REFERENCE_MAX_AGE_ENV, "600")
    grading.reference_times(EX, "triton", PLAN, None)
    grading.reference_times(EX, "triton", PLAN, None, fresh=True)  # near the bar
    assert len(measured) == 2
    later = time.time() + 601
    monkeypatch.setattr(grading.time, "time", lambda: later)
    assert times(grading.reference_times(EX, "triton", PLAN, None)) == [{"reference": [3.0] * 3}]
    monkeypatch.setattr(bench, "gpu_id", lambda: "NVIDIA H200 GPU-bbbb")  # the node's other GPU
    grading.reference_times(EX, "triton", PLAN, None)
    assert len(measured) == 4


def test_a_reference_that_fails_is_an_error_and_nothing_is_kept(measured, monkeypatch):
    monkeypatch.setenv(grading.REFERENCE_MAX_AGE_ENV, "600")
    monkeypatch.setattr(runner, "run", lambda request, timeout, **_: Outcome(timed_out=True))
    with pytest.raises(grading.ReferenceFailed):
        grading.reference_times(EX, "triton", PLAN, None)
    assert not list(paths.CACHE.rglob("*.json"))



def _reference_tree(root):
    """A reference/ of lab01's folder (a launcher, its CUDA C) and a shared folder."""
    lab = root / EX.lab_id
    lab.mkdir(parents=True)
    (lab / f"{EX.name}_cuda.py").write_text("SOURCE = 'kernel.cu'\n")
    (lab / "kernel.cu").write_text("// one\n")
    (root / "common").mkdir()
    (root / "common" / "gemm.cuh").write_text("// body\n")
    (root / "lab02_matrix_add").mkdir()
    (root / "lab02_matrix_add" / "other.cu").write_text("// another lab's\n")
    return lab


def test_the_kept_times_follow_the_reference_s_cuda_c_and_shared_code(tmp_path, monkeypatch):
    """The key of the kept times changes with a .cu file of the lab's reference or a file of
    a shared folder (reference/common), not with another lab's."""
    from grader.lab import reference

    monkeypatch.setattr(paths, "REFERENCE", tmp_path)
    lab = _reference_tree(tmp_path)
    assert reference.shared_folders() == [tmp_path / "common"]
    key = reference.digest(EX, "cuda", "case")
    (tmp_path / "lab02_matrix_add" / "other.cu").write_text("// changed\n")
    assert reference.digest(EX, "cuda", "case") == key
    (lab / "kernel.cu").write_text("// two\n")
    assert reference.digest(EX, "cuda", "case") != key, "an edit of the CUDA C kept the key"
    key = reference.digest(EX, "cuda", "case")
    (tmp_path / "common" / "gemm.cuh").write_text("// body, edited\n")
    assert reference.digest(EX, "cuda", "case") != key, "an edit of shared code kept the key"


def test_a_shared_reference_folder_is_secret(tmp_path):
    """A line of reference/common in a release would leak as a lab's own reference would."""
    from grader.course import leakcheck

    _reference_tree(tmp_path)
    (tmp_path / "common" / "gemm.cuh").write_text("wmma::mma_sync(acc[i][j], fa_shared, fb);\n")
    secret = leakcheck.secret_lines([manifest.get("lab01")], reference_dir=tmp_path,
                                    kinds=("reference",))
    assert "wmma::mma_sync(acc[i][j], fa_shared, fb);" in secret
    assert "lab02" not in " ".join(secret.values())  # another lab's folder is not asked for
