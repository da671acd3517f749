"""`TCLAB_TRACE=1`: time stamps on stderr where a check's seconds go.

A worker's stamps land in its output; `execution.runner` copies them into the grading process's
stderr (a grading task's log), labelled with the run they belong to.
"""

from __future__ import annotations

import os

PREFIX = "tclab-trace "  # a stamp's line: PREFIX, the wall-clock time, what happened


def enabled() -> bool:
    return os.environ.get("TCLAB_TRACE") == "1"


def trace(what: str) -> None:
    if enabled():
        import time

        os.write(2, f"{PREFIX}{time.time():.3f} {what}\n".encode())
