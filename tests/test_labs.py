"""Every lab × exercise × implementation, graded as `tclab check` grades it (select with
`-k lab01`).

By default this checks YOUR notebook in exercises/; `--submission solutions` checks the labs'
own solution cells (what `make test` does).
"""

from __future__ import annotations

import pytest

from grader.lab import manifest
from grader.pipeline import grading

CASES = [(lab.id, ex.name, impl) for lab in manifest.registry().values()
         for ex in lab.exercises for impl in ex.impls]


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
