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


# The audit's dispatch modes must not import torch._dynamo (2 s of every grading process's
# start here), and must still judge the op's caller; once something has imported torch._dynamo
# (a submission's torch.compile), they run dynamo-disabled, as torch's own wrapping does.
DYNAMO = """
import sys
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from grader import audit

if sys.argv[1] == "plain":  # the control: torch's own wrapping imports torch._dynamo
    class Plain(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))
    with Plain():
        torch.ones(2).add(1)
    print("dynamo:", "torch._dynamo" in sys.modules)
    raise SystemExit
disabled = []
if sys.argv[1] == "dynamo":
    import torch._dynamo
    real = torch._disable_dynamo
    torch._disable_dynamo = lambda fn, **kw: disabled.append(fn) or real(fn, **kw)
with audit.Audit() as seen:
    torch.ones(2).add(1)  # this file is no library: its add is foreign work
print("dynamo:", "torch._dynamo" in sys.modules)
print("foreign:", seen.foreign)
print("disabled:", len(disabled))
"""


def _dynamo_run(how: str) -> list[str]:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", DYNAMO, how], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()


def test_the_audit_judges_ops_without_importing_dynamo():
    assert _dynamo_run("lazy") == [
        "dynamo: False", "foreign: ['torch.ops.aten.add']", "disabled: 0"]
    assert _dynamo_run("plain") == ["dynamo: True"]  # the control: what it saves


def test_once_dynamo_is_imported_the_audit_runs_dynamo_disabled():
    assert _dynamo_run("dynamo") == [
        "dynamo: True", "foreign: ['torch.ops.aten.add']", "disabled: 1"]
