"""The negative controls in tests/corpus/: each submission gets the verdict its header names."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import grading, manifest

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.glob("lab*/*.py"))


def header(path: Path) -> dict:
    fields: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("# %%"):
            break
        if line.startswith("# ") and ":" in line:
            key, value = line[2:].split(":", 1)
            fields.setdefault(key.strip(), []).append(value.strip())
    return fields


def _marks(path: Path):
    device = header(path).get("device", ["any"])[0]
    return [pytest.mark.gpu] if device == "gpu" else []


@pytest.mark.parametrize("path", [pytest.param(p, marks=_marks(p)) for p in FILES],
                         ids=[f"{p.parent.name[6:]}-{p.stem}" for p in FILES])  # no lab id:
# `pytest -k lab01` is the student's command for their own notebook
def test_corpus_verdict(path, device):
    want = header(path)
    if want.get("device", ["any"])[0] == "cpu" and device != "cpu":
        pytest.skip("a CPU-only control")
    lab = manifest.get(path.parent.name)
    impl = want["impl"][0]
    timeout = float(want["timeout"][0]) if "timeout" in want else None
    perf = "perf" in want
    (result,) = grading.grade_notebook(lab, path, device, impls=[impl], perf=perf,
                                       timeout=timeout)
    got = result["perf"] if perf and result["correct"] else result
    assert got["status"] == want["status"][0], f"{path.name}: {got['status']}: {got['reason']}"
    for phrase in want.get("reason", []):
        assert phrase in got["reason"], f"{path.name}: {phrase!r} not in {got['reason']!r}"
    if "reason-any" in want:
        phrases = [p.strip() for p in want["reason-any"][0].split("|")]
        assert any(p in got["reason"] for p in phrases), f"{path.name}: {got['reason']!r}"
