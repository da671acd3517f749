"""A grading task that only reports where Slurm put it: no grading, one verdict file.

    # status: graded, note "CUDA_VISIBLE_DEVICES=<what Slurm set> TCLAB_DEVICE=<exported>"

Run as `python -m course_cases.gpu_probe DIR LAB STUDENT [...]` in place of the real task.
It holds its GPU for HOLD seconds, so that tasks overlap and must have been given different
ones; the verdict file also records when it held it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

HOLD = 2.0


def main() -> None:
    root, lab_id, student = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    started = time.time()
    time.sleep(HOLD)
    path = root / ".tclab" / "outcomes" / lab_id / f"{student}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "student": student, "status": "graded", "started": started, "ended": time.time(),
        "note": f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '')} "
                f"TCLAB_DEVICE={os.environ.get('TCLAB_DEVICE', '')}"}))


if __name__ == "__main__":
    main()
