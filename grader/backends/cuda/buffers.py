"""Finding the memory behind pointer arguments, for checked mode and schedule comparison.

Students pass `np.uintp(t.data_ptr())`: a bare address, no size. To copy that memory (next to
a guard page, or once per schedule) we need its extent, so we look for the array or tensor it
belongs to: first among buffers registered with `track(...)`, then among the local variables
of the calling frames (the launcher that called the kernel holds x, y and out). A pointer
that cannot be resolved is used in place, unchecked; the caller is told which ones.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from dataclasses import dataclass, field

import numpy as np

from grader.backends.cuda.args import Arg, Buffer, buffer_of, is_tensor

FRAMES_SEARCHED = 40
_tracked: list[object] = []


@contextlib.contextmanager
def track(*objects):
    """Declare arrays/tensors that raw-pointer arguments may point into, for checked mode and
    run_twice_and_compare, when they are not visible in the calling frames."""
    _tracked.extend(objects)
    try:
        yield
    finally:
        for obj in objects:
            _tracked.remove(obj)


def _candidates(values, out: dict[int, object]) -> None:
    for value in values:
        if isinstance(value, np.ndarray) or (is_tensor(value) and value.device.type == "cpu"):
            out.setdefault(id(value), value)
        elif isinstance(value, (list, tuple)):
            for v in value[:64]:
                if isinstance(v, np.ndarray) or (is_tensor(v) and v.device.type == "cpu"):
                    out.setdefault(id(v), v)
        elif isinstance(value, dict):
            for v in list(value.values())[:64]:
                if isinstance(v, np.ndarray) or (is_tensor(v) and v.device.type == "cpu"):
                    out.setdefault(id(v), v)


def resolve(args: list[Arg], skip_frames: int = 2) -> list[Arg]:
    """Give every raw-pointer argument the buffer it points into; returns those left unknown."""
    unknown = [a for a in args if a.pointer is not None and a.buffer is None]
    if not unknown:
        return []
    found: dict[int, object] = {}
    _candidates(_tracked, found)
    frame = sys._getframe(skip_frames)
    for _ in range(FRAMES_SEARCHED):
        if frame is None:
            break
        _candidates(list(frame.f_locals.values()), found)
        frame = frame.f_back
    buffers = [buffer_of(obj) for obj in found.values()]
    still = []
    for a in unknown:
        hits = [b for b in buffers if b.start <= a.pointer < b.start + max(b.nbytes, 1)]
        if hits:
            a.buffer = max(hits, key=lambda b: b.nbytes)  # the whole allocation, not a view
        else:
            still.append(a)
    return still


@dataclass
class Region:
    """A span of memory that one or more pointer arguments point into (overlaps merged, so
    that aliasing arguments keep aliasing in a copy)."""

    start: int
    nbytes: int
    args: list[Arg] = field(default_factory=list)

    @property
    def end(self) -> int:
        return self.start + self.nbytes

    def read(self) -> bytes:
        return ctypes.string_at(self.start, self.nbytes)


def regions(args: list[Arg]) -> list[Region]:
    spans = sorted((a for a in args if a.buffer is not None), key=lambda a: a.buffer.start)
    out: list[Region] = []
    for a in spans:
        lo, hi = a.buffer.start, a.buffer.start + a.buffer.nbytes
        if out and lo < out[-1].end:
            r = out[-1]
            r.nbytes = max(r.end, hi) - r.start
            r.args.append(a)
        else:
            out.append(Region(lo, hi - lo, [a]))
    return out


def write(address: int, data: bytes) -> None:
    ctypes.memmove(address, data, len(data))


def describe_owner(buffer: Buffer) -> str:
    n = buffer.nbytes // max(buffer.itemsize, 1)
    return f"{n} x {buffer.dtype} = {buffer.nbytes} bytes"
