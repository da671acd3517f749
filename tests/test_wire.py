"""Tensor frames between the grader and a worker (`grader.base.wire`): what goes in comes out, and
a worker's forged or torn bytes are a WireError, never an object, a crash or a huge buffer."""

from __future__ import annotations

import json
import os
import struct
import threading

import pytest
import torch

from grader.base import wire


def test_a_frame_round_trips_every_kind_of_value():
    obj = {"index": 3, "shape": {"n": 5}, "dtype": "bfloat16", "none": None, "f": 1.5,
           "inputs": {"x": torch.randn(5).bfloat16(), "y": torch.randn(3, 4)[:, 1:]},
           "layouts": {"x": ((2,), 1)}, "flags": {"b": torch.tensor(True)},
           "empty": torch.empty(0, 3), "list": [1, "a"]}
    back = wire.untensors(bytearray(wire.tensors(obj)))
    assert back["layouts"] == {"x": ((2,), 1)} and back["list"] == [1, "a"]  # tuples stay
    assert back["inputs"]["x"].dtype == torch.bfloat16
    assert torch.equal(back["inputs"]["x"], obj["inputs"]["x"])
    assert torch.equal(back["inputs"]["y"], obj["inputs"]["y"])
    assert back["empty"].shape == (0, 3) and bool(back["flags"]["b"])
    assert (back["none"], back["f"], back["index"]) == (None, 1.5, 3)


def test_a_large_frame_through_a_pipe():
    r, w = os.pipe()
    big = {"o": torch.randn(1 << 22)}
    writer = threading.Thread(target=wire.write, args=(w, wire.tensors(big)))
    writer.start()
    got = wire.untensors(wire.read(r))
    writer.join()
    os.close(r)
    os.close(w)
    assert torch.equal(got["o"], big["o"])


def framed(header) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text


@pytest.mark.parametrize("data", [
    b"",  # no header
    struct.pack("<Q", 5) + b"{}",  # shorter than its header says
    wire.tensors({"x": torch.ones(3)})[:-1],  # shorter than its tensors
    wire.tensors({"x": torch.ones(3)}) + b"x",  # longer than its tensors
    framed({"t": 0, "dtype": "object", "shape": [1]}),  # no such dtype
    framed({"t": 0, "dtype": "float32", "shape": [-1]}),  # a negative size
    framed({"t": 1, "dtype": "float32", "shape": [0]}),  # tensors out of order
    framed({"v": {"__class__": "os.system"}}),  # only plain values
    framed({"x": 1, "y": 2}),  # malformed
    struct.pack("<Q", 3) + b"[1,",  # not JSON
], ids=["no header", "short header", "short", "long", "dtype", "negative", "order", "value",
        "malformed", "not json"])
def test_a_forged_or_torn_frame_is_a_wire_error(data):
    with pytest.raises(wire.WireError):
        wire.untensors(bytearray(data))


def test_a_forged_length_costs_no_memory_past_the_preallocation(monkeypatch):
    """A frame that says 32 GiB (more than the development machine holds) and then ends: the
    reader fails on the missing bytes, having held no more than the preallocated buffer."""
    monkeypatch.setattr(wire, "PREALLOCATE", 1 << 20)
    r, w = os.pipe()
    os.write(w, struct.pack("<Q", 1 << 35) + b"x" * 1000)
    os.close(w)
    with pytest.raises(wire.WireError, match="closed the pipe 1000 bytes into"):
        wire.read(r)
    os.close(r)
