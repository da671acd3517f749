"""A notebook's `bench` on a GPU that other processes compute on says its numbers are
indicative only (`backends.bench.shared_note`); the decision, from nvidia-smi's list of compute
processes, is tested on made-up lists, and where nvidia-smi cannot answer it says nothing."""

from __future__ import annotations

import os
import subprocess

import pytest

from grader.backends import bench

OURS = "GPU-1a2b3c4d-0000-1111-2222-333344445555"
TWIN = "GPU-9f9f9f9f-0000-1111-2222-333344445555"  # another GPU of the same machine


def listing(*rows: tuple[int, str]) -> str:
    return "".join(f"{pid}, {uuid}\n" for pid, uuid in rows)


@pytest.mark.parametrize("rows,others", [
    ([(100, OURS)], 0),  # this process alone
    ([], 0),  # a container that lists nothing
    ([(100, OURS), (200, OURS), (300, OURS)], 2),
    ([(100, OURS), (200, TWIN), (300, TWIN)], 0),  # the others use the machine's other GPU
    ([(4100, OURS)], 0),  # this process under the host's pid (a container)
    ([(4100, OURS), (4200, OURS)], 1),  # the same, beside one other
], ids=["alone", "nothing-listed", "two-others", "others-on-a-twin", "host-pid-alone",
        "host-pid-and-one-other"])
def test_others_on_this_gpu_are_counted(rows, others):
    assert bench.others_computing(listing(*rows), OURS.removeprefix("GPU-")) == others


def test_a_mig_slice_is_not_shared_with_the_gpus_other_slices():
    rows = listing((100, OURS), (200, OURS))
    assert bench.others_computing(rows, "MIG-5e5e5e5e-0000-1111-2222-333344445555") == 0
    assert bench.others_computing("[Not Supported], " + OURS + "\n", OURS) == 0


def _fake_gpu(monkeypatch, stdout: str = "", returncode: int = 0, raises=None):
    """nvidia-smi on the PATH answering `stdout`, and torch's GPU with the UUID `OURS`."""
    import shutil
    from types import SimpleNamespace

    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/nvidia-smi")

    def run(cmd, **kw):
        assert cmd == bench.COMPUTE_APPS and kw.get("timeout"), (cmd, kw)
        if raises:
            raise raises
        return SimpleNamespace(stdout=stdout, returncode=returncode)

    monkeypatch.setattr(subprocess, "run", run)
    monkeypatch.setattr(bench.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(bench.torch.cuda, "get_device_properties",
                        lambda i: SimpleNamespace(uuid=OURS.removeprefix("GPU-")))


ME = os.getpid()


def test_bench_says_when_the_gpu_is_shared(monkeypatch):
    _fake_gpu(monkeypatch, listing((ME, OURS), (ME + 1, OURS), (ME + 2, OURS)))
    note = bench.shared_note()
    assert note.startswith("note: 2 other processes compute on this GPU") and \
        "indicative only" in note, note


@pytest.mark.parametrize("how", ["alone", "failing", "timeout", "missing"])
def test_no_note_when_alone_or_when_nvidia_smi_cannot_tell(monkeypatch, how):
    import shutil

    shared = listing((ME, OURS), (ME + 1, OURS))
    if how == "alone":
        _fake_gpu(monkeypatch, listing((ME, OURS)))
    elif how == "failing":
        _fake_gpu(monkeypatch, shared, returncode=9)
    elif how == "timeout":
        _fake_gpu(monkeypatch, shared, raises=subprocess.TimeoutExpired("nvidia-smi", 5))
    else:
        _fake_gpu(monkeypatch, shared)
        monkeypatch.setattr(shutil, "which", lambda name: None)
    assert bench.shared_note() == ""
