"""The tamper watch (grader.tamper) is taken when the notebook's setup cell imports the grader:
it must not cost that cell torch._dynamo's import (3 s on the 2-core machine), and the rewrap
of torch.manual_seed that the import does later is no tampering; a real replacement is."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import sys
import grader.notebook as nb
import torch
print("dynamo at setup:", "torch._dynamo" in sys.modules)
print("clean:", nb._WATCH.tampered())
import torch._dynamo
print("after dynamo:", nb._WATCH.tampered())
torch.manual_seed = lambda seed: None
print("replaced:", nb._WATCH.tampered())
"""


def test_the_setup_cell_skips_dynamo_and_its_rewrap_is_no_tampering():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "TCLAB_DEVICE": "cpu"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "dynamo at setup: False",
        "clean: []",
        "after dynamo: []",
        "replaced: ['torch.manual_seed']",  # the control: a replacement is still named
    ], out.stdout
