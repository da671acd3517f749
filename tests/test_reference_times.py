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

