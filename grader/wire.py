"""Length-prefixed frames between the parent and a worker: the request, then each case's
inputs (only after the student's module is loaded), and each launch's result.

A frame is 8 bytes of length (little-endian) and that many bytes: JSON for the request, a
`torch.save` of a dict of tensors for inputs and results, read back with `weights_only=True`
(a worker's bytes are untrusted). Nothing a frame holds ever touches the disk.
"""

from __future__ import annotations

import io
import os
import struct

HEADER = struct.Struct("<Q")
MAX_FRAME = 1 << 36  # 64 GiB: larger is a corrupt or forged length


class WireError(RuntimeError):
    pass


def pack(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def tensors(obj) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def untensors(data: bytes):
    import torch

    return torch.load(io.BytesIO(data), weights_only=True)


def write(fd: int, payload: bytes, _write=os.write) -> None:
    view = memoryview(pack(payload))
    while view:
        view = view[_write(fd, view):]


def _read_exactly(fd: int, n: int, _read=os.read) -> bytes:
    parts, left = [], n
    while left:
        chunk = _read(fd, min(left, 1 << 24))
        if not chunk:
            raise WireError(f"the other side closed the pipe {n - left} bytes into {n}")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def read(fd: int) -> bytes:
    (size,) = HEADER.unpack(_read_exactly(fd, HEADER.size))
    if size > MAX_FRAME:
        raise WireError(f"a frame of {size} bytes: corrupt or forged")
    return _read_exactly(fd, size)
