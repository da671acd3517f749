"""The audit's own output: what it records must not reach the student's stderr."""

from __future__ import annotations

import warnings

from torch.profiler import profiler

from grader import audit

NOTICE = ("Warning: Profiler clears events at the end of each cycle. Only events from the "
          "current cycle will be reported.To keep events across cycles, set acc_events=True.")


def _shown(message: str, quiet: bool) -> list[str]:
    getattr(profiler, "_WARNINGS_SHOWN", set()).discard(message)  # torch shows each once
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        if quiet:
            with audit._quiet_profiler():
                profiler._warn_once(message)
        else:
            profiler._warn_once(message)
    return [str(w.message) for w in seen]


def test_the_profilers_cycle_notice_is_silenced_and_nothing_else():
    assert _shown(NOTICE, quiet=True) == []
    # Controls: the same notice outside, and any other warning inside, are shown.
    assert _shown(NOTICE, quiet=False) == [NOTICE]
    other = "Warning: something the student should see"
    assert _shown(other, quiet=True) == [other]
