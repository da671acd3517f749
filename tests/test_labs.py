"""Every lab × implementation, graded as `tclab check` grades it (select with `-k lab01`).

By default this checks YOUR notebook in exercises/; `--submission solutions` checks the labs'
own solution cells (what `make test` does).
"""

from __future__ import annotations

import pytest

from grader import grading, manifest

CASES = [(lab.id, impl) for lab in manifest.registry().values() for impl in lab.impls]


@pytest.mark.parametrize("lab_id,impl", CASES, ids=[f"{lab}-{impl}" for lab, impl in CASES])
def test_submission(lab_id, impl, device, submission_choice):
    lab = manifest.get(lab_id)
    path = grading.resolve_submission(lab, submission_choice)
    (result,) = grading.grade_notebook(lab, path, device, impls=[impl], perf=False)
    if not result["correct"]:
        details = next((c.get("details") for c in result["checks"] if c["status"] != "pass"), "")
        pytest.fail(f"{lab_id} {impl}: {result['reason']}\n{details or ''}".rstrip(),
                    pytrace=False)
    assert result["passed"] == result["total"] > 0
