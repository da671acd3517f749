"""Every lab × exercise × implementation, graded as `tclab check` grades it (select with
`-k lab01`).

By default this checks YOUR notebook in exercises/; `--submission solutions` checks the labs'
own solution cells (what `make test` does).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.lab import manifest
from grader.pipeline import grading

CASES = [(lab.id, ex.name, impl) for lab in manifest.registry().values()
         for ex in lab.exercises for impl in ex.impls]
# Labs whose CUDA cells use WMMA fragments (their notebook says `wmma::`).
WMMA_LABS = sorted(lab.id for lab in manifest.registry().values()
                   if "wmma::" in lab.source.read_text())


# One submitter: its checks share worker servers, as `tclab check` has them share.
pytestmark = pytest.mark.usefixtures("shared_servers")


@pytest.mark.parametrize("lab_id,exercise,impl", CASES,
                         ids=[f"{lab}-{ex}-{impl}" for lab, ex, impl in CASES])
def test_submission(lab_id, exercise, impl, device, submission_choice):
    lab = manifest.get(lab_id)
    path = grading.resolve_submission(lab, submission_choice)
    (grade,) = grading.grade_notebook(lab, path, device, impls=[impl], exercises=[exercise],
                                      perf=False)
    if not grade.correct:
        bad = grade.first_failure
        pytest.fail(f"{grade.exercise} {impl}: {grade.reason}\n{bad.details if bad else ''}"
                    .rstrip(), pytrace=False)
    assert grade.passed == grade.total > 0


@pytest.mark.slow
@pytest.mark.parametrize("lab_id", WMMA_LABS)
def test_wmma_submission_in_the_gpus_fragment_map(lab_id, device, submission_choice):
    """The CUDA cells again, with the CPU backend's WMMA fragments in the course GPUs' map
    (TCLAB_WMMA_LAYOUT=mma): code that learns the map at run time and takes another path where
    it finds the GPU's (lab16's row maxima through quad shuffles) runs that path here, and code
    that assumes the CPU backend's map fails here as it would on a GPU. On a GPU the map is
    the GPU's already: skipped."""
    if device == "gpu":
        pytest.skip("the GPU's map is the GPU's own")
    proc = check_in_the_gpus_map(lab_id, submission_choice)
    cuda = [line for line in proc.stdout.splitlines() if " cuda" in line]
    assert proc.returncode == 0, "\n".join(cuda) or proc.stdout[-3000:] + proc.stderr[-3000:]


def check_in_the_gpus_map(lab_id: str, submission: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TCLAB_WMMA_LAYOUT": "mma"}
    return subprocess.run([sys.executable, "-m", "grader.cli", "check", lab_id, "--submission",
                           submission, "--device", "cpu", "--results", os.devnull],
                          env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_a_flaw_of_the_gpus_path_fails_in_the_gpus_fragment_map():
    """Negative control: lab16's CUDA attention with its shuffle path wrong (a corpus control
    that runs on a GPU only, since the CPU backend's own map takes the exchange path) passes on
    the CPU backend as it stands and fails for that flaw once the map is the GPU's."""
    sys.path.insert(0, str(Path(__file__).parent))
    import corpus_controls

    control = corpus_controls.CORPUS / "lab16_attention" / "cuda_row_max_over_half_the_quad.py"
    path = str(corpus_controls.notebook(control))
    own = subprocess.run([sys.executable, "-m", "grader.cli", "check", "lab16", "--submission",
                          path, "--device", "cpu", "--results", os.devnull],
                         capture_output=True, text=True, timeout=900)
    gpu_map = check_in_the_gpus_map("lab16", path)
    # The control holds the CUDA attention cells only: the other exercises are missing.
    verdict = {name: " ".join(proc.stdout.split()).split("lab16_attention/attention cuda: ")[-1]
               for name, proc in (("own", own), ("gpu", gpu_map))}
    assert verdict["own"].startswith("28/28 shapes correct"), own.stdout[-2000:]
    assert "elements differ" in verdict["gpu"].split("lab16_attention/")[1], gpu_map.stdout[-2000:]
