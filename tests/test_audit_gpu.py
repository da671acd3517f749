"""The GPU's own record of what ran during a launch (CUPTI, through torch's profiler): the
student's kernels and torch's fills pass, anything else is named, whichever thread or stream
launched it."""

from __future__ import annotations

import threading

import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu():
    from grader import device as dev

    dev.use("gpu")
    import torch

    return torch


def _add_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def probe_add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs,
                                                                           mask=mask), mask=mask)
    return probe_add_kernel


def test_own_kernel_and_fills_pass_torch_compute_is_named(gpu):
    from grader import audit

    torch = gpu
    kernel = _add_kernel()
    x, y = torch.randn(4096, device="cuda"), torch.randn(4096, device="cuda")
    out = torch.empty_like(x)
    with audit.DeviceKernels() as ran:
        torch.zeros(1024, device="cuda")  # a scratch buffer: allowed
        kernel[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert any("probe_add_kernel" in k for k in ran.names), ran.names
    assert ran.foreign({"probe_add_kernel"}) == [], ran.names
    with audit.DeviceKernels() as ran:
        torch.add(x, y, out=out)
    assert ran.foreign({"probe_add_kernel"}), f"torch.add not seen: {ran.names}"


def test_work_from_another_thread_and_stream_is_recorded(gpu):
    from grader import audit

    torch = gpu
    x = torch.randn(1 << 16, device="cuda")

    def elsewhere():
        with torch.cuda.stream(torch.cuda.Stream()):
            torch.exp(x)

    with audit.DeviceKernels() as ran:
        t = threading.Thread(target=elsewhere)
        t.start()
        t.join()
    found = ran.foreign(set())
    assert found and "GPU kernel" in found[0], ran.names


def test_a_debug_print_of_a_device_tensor_runs_nothing_on_the_device(gpu, capsys):
    """torch formats a device tensor with kernels of its own (abs, min, max); inside the record
    it is formatted from a host copy, so a leftover print is not torch computing."""
    from grader import audit

    torch = gpu
    x = torch.randn(3000, device="cuda")
    with audit.DeviceKernels() as ran:
        print(f"debug: {x}")
    assert ran.foreign(set()) == [], ran.names
    assert "device='cuda:0'" in capsys.readouterr().out
    with audit.DeviceKernels() as ran:
        x.abs()  # the negative control: torch computing is still named
    assert ran.foreign(set()), ran.names


def test_records_in_a_row_write_nothing_to_stderr(gpu):
    """torch's profiler warned, on stderr, that it "clears events at the end of each cycle"
    (torch 2.11, in a notebook's first check): nbgrader scores a grade cell with stderr 0."""
    import warnings

    from torch.profiler import profiler

    from grader import audit

    torch = gpu
    getattr(profiler, "_WARNINGS_SHOWN", set()).clear()  # shown once a process: show again
    x = torch.ones(1 << 10, device="cuda")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(3):
            with audit.DeviceKernels():
                x.add_(1)
    assert not seen, [str(w.message) for w in seen]


# The record must not import torch._inductor (torch.profiler.profile's start asks
# hasattr(torch, "_inductor"): 4-5 s of every grading process's first launch); the control
# is torch.profiler.profile itself, which does.
INDUCTOR = """
import sys
import torch
from grader import audit, device
device.use("gpu")
x = torch.ones(1 << 10, device="cuda")
if sys.argv[1] == "torch":
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
        x.add_(1)
else:
    with audit.DeviceKernels() as ran:
        x.add_(1)
    print("seen:", bool(ran.foreign(set())))
print("inductor:", "torch._inductor" in sys.modules, "dynamo:", "torch._dynamo" in sys.modules)
"""


def test_the_record_does_not_import_inductor(gpu):
    import os
    import subprocess
    import sys

    def run(how):
        proc = subprocess.run([sys.executable, "-c", INDUCTOR, how], capture_output=True,
                              text=True, timeout=300, env={**os.environ, "TCLAB_DEVICE": "gpu"})
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout.splitlines()

    assert run("audit") == ["seen: True", "inductor: False dynamo: False"]
    assert run("torch") == ["inductor: True dynamo: True"]
