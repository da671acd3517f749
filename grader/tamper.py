"""What a submission must not replace, captured before its code loads and compared after.

Replacing these cannot change a verdict (the parent checks; the timer keeps its own bound
references), but a submission that tries is told so by name instead of being silently ignored.
"""

from __future__ import annotations

import os
import time


class Watch:
    def __init__(self, gpu: bool):
        import torch.testing

        from grader import check, notebook

        owners = [(torch, "allclose"), (torch, "isclose"), (torch, "equal"),
                  (torch.testing, "assert_close"), (time, "perf_counter"), (time, "time"),
                  (os, "write"), (os, "urandom"), (check, "compare"), (check, "oracle"),
                  (notebook, "check"), (notebook, "bench"), (torch.Tensor, "copy_"),
                  (torch.Tensor, "zero_")]
        if gpu:
            owners += [(torch.cuda, "synchronize"), (torch.cuda, "Event"),
                       (torch.cuda.Event, "record"), (torch.cuda.Event, "elapsed_time")]
        self.objects = {(owner, name): getattr(owner, name) for owner, name in owners}
        # Everything torch offers that computes: a perf round's output is checked against the
        # oracle evaluated with these, in the same process as the student's code. (torch._dynamo
        # is not imported for this: 3 s of a notebook's setup cell on the 2-core machine. Its
        # first import, whenever it comes, re-wraps torch.manual_seed: `tampered` allows that.)
        import torch.nn.functional  # entering a dispatch mode imports it anyway

        self.tables = {label: (owner, {k: v for k, v in vars(owner).items() if callable(v)})
                       for label, owner in (("torch", torch), ("torch.Tensor", torch.Tensor),
                                            ("torch.nn.functional", torch.nn.functional))}

    def tampered(self) -> list[str]:
        found = [f"{getattr(owner, '__name__', type(owner).__name__)}.{name}"
                 for (owner, name), obj in self.objects.items()
                 if getattr(owner, name) is not obj]
        for label, (owner, table) in self.tables.items():
            now = vars(owner)
            found += [f"{label}.{name}" for name, obj in table.items()
                      if now.get(name) is not obj and not _rewrapped(now.get(name), obj)]
        return found[:10]


def _rewrapped(now, obj) -> bool:
    """`now` wraps `obj` (functools.wraps), as torch._dynamo's import wraps torch.manual_seed.
    (A submission's own wrapper passes too: what it wraps still runs.)"""
    return getattr(now, "__wrapped__", None) is obj
