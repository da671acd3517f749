"""Stand-ins, for tests/test_slurm.py only, for the two halves of autograde that the course
code is being split into: the per-submission task and the importer.

    python -m slurm_standin DIR LAB STUDENT [--device D] [--limit S]   (grader.course.task)
    finish(root, lab_id, students, device, console=None)               (autograde.finish)

The test uses them only while `grader.course.task` or `autograde.finish` is missing. They keep
the contract the Slurm path is written against: the task writes the submission's Outcome to
DIR/.tclab/outcomes/LAB/STUDENT.json and exits 0 whenever it wrote one; the importer reads
those files (a missing one is "failed", note "no result") and fills the scores from the
gradebook. Unlike the real split, this task still lets nbgrader write the shared gradebook.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from grader.course import autograde, build


def outcome_path(root: Path, lab_id: str, student: str) -> Path:
    return Path(root) / build.STATE / "outcomes" / lab_id / f"{student}.json"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="slurm_standin")
    p.add_argument("dir")
    p.add_argument("lab")
    p.add_argument("student")
    p.add_argument("--device", default="cpu")
    p.add_argument("--limit", type=float, default=autograde.DEFAULT_LIMIT)
    args = p.parse_args(argv)
    root = Path(args.dir).resolve()
    # CUDA_VISIBLE_DEVICES as given (gpu=None): Slurm's choice, never ours.
    out = autograde.run_one(root, args.lab, args.student, args.device, None, args.limit)
    path = outcome_path(root, args.lab, args.student)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out.to_dict()))
    return 0


def finish(root: Path, lab_id: str, students: list[str], device: str,
           console=None) -> list[autograde.Outcome]:
    outcomes = []
    for student in students:
        path = outcome_path(root, lab_id, student)
        if not path.exists():
            outcomes.append(autograde.Outcome(student, status="failed", note="no result"))
            continue
        saved = json.loads(path.read_text())
        outcomes.append(autograde.Outcome(
            student, status=saved["status"], seconds=saved["seconds"], note=saved["note"],
            log=Path(saved["log"]) if saved["log"] else None, verdicts=saved["verdicts"]))
    autograde.read_scores(Path(root), lab_id, outcomes)
    return outcomes


if __name__ == "__main__":
    sys.exit(main())
