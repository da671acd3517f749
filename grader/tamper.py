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
                  (os, "write"), (check, "compare"), (check, "oracle"), (notebook, "check"),
                  (notebook, "bench"), (torch.Tensor, "copy_"),
                  (torch.Tensor, "zero_")]
        if gpu:
            owners += [(torch.cuda, "synchronize"), (torch.cuda, "Event"),
                       (torch.cuda.Event, "record"), (torch.cuda.Event, "elapsed_time")]
        self.objects = {(owner, name): getattr(owner, name) for owner, name in owners}

    def tampered(self) -> list[str]:
        return [f"{getattr(owner, '__name__', type(owner).__name__)}.{name}"
                for (owner, name), obj in self.objects.items() if getattr(owner, name) is not obj]
