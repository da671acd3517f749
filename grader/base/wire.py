"""Length-prefixed frames between the parent and a worker: the request, then each case's
inputs (only after the student's module is loaded), and each launch's result.

A frame is 8 bytes of length (little-endian) and that many bytes: JSON for the request; for
inputs and results (`tensors`), 8 bytes of header length, a JSON header (the object, each
tensor in it replaced by its index, dtype and shape), then every tensor's bytes in turn, each
starting at a multiple of ALIGN. Read back (`untensors`) by that header alone, every length checked,
each tensor a view of the frame: a worker's bytes are untrusted, and nothing in them is ever
executed or unpickled. Nothing a frame holds ever touches the disk. (torch.save and torch.load
took 0.4 s of a lab01 GPU case's 192 MiB result on the 2-core development machine; this
format costs a copy.)
"""

from __future__ import annotations

import json
import math
import os
import struct

HEADER = struct.Struct("<Q")
MAX_FRAME = 1 << 36  # 64 GiB: larger is a corrupt or forged length


class WireError(RuntimeError):
    pass


def pack(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


ALIGN = 64  # each tensor's bytes start at a multiple of this from the payload's start
_DTYPES = ("float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
           "uint8", "bool")


def _dtype(name: str):
    import torch

    if name not in _DTYPES:
        raise WireError(f"a tensor of dtype {name!r}: corrupt or forged")
    return getattr(torch, name)


def tensors(obj) -> bytes:
    """`obj` (dicts with string keys, lists, tuples, numbers, strings, None and CPU or GPU
    tensors) as a frame's payload."""
    import torch

    blobs: list = []

    def tree(x):
        if isinstance(x, torch.Tensor):
            t = x.detach().to("cpu").contiguous()
            blobs.append(t.reshape(-1).view(torch.uint8).numpy())
            return {"t": len(blobs) - 1, "dtype": str(t.dtype).removeprefix("torch."),
                    "shape": list(t.shape)}
        if isinstance(x, dict):
            return {"d": {str(k): tree(v) for k, v in x.items()}}
        if isinstance(x, (list, tuple)):
            return {"l" if isinstance(x, list) else "u": [tree(v) for v in x]}
        return {"v": x}

    header = json.dumps(tree(obj)).encode()
    parts, at = [HEADER.pack(len(header)), header], HEADER.size + len(header)
    for blob in blobs:
        pad = -at % ALIGN
        parts += [bytes(pad), blob]
        at += pad + blob.nbytes
    return b"".join(parts)


def untensors(data: bytes):
    """What `tensors()` framed; WireError for anything else."""
    import torch

    view = memoryview(data)
    if len(view) < HEADER.size:
        raise WireError("a tensor frame without its header")
    (size,) = HEADER.unpack(view[:HEADER.size])
    start = HEADER.size + size
    if start > len(view):
        raise WireError("a tensor frame shorter than its header says")
    try:
        top = json.loads(bytes(view[HEADER.size:start]))
    except ValueError as exc:
        raise WireError(f"a tensor frame's header is not JSON: {exc}") from None
    at = [start]  # where the next tensor's bytes begin
    count = [0]

    def tree(x):
        if not isinstance(x, dict):
            raise WireError("a tensor frame's header is malformed")
        if "t" in x and len(x) == 3:
            if x["t"] != count[0]:
                raise WireError("a tensor frame's tensors are out of order")
            count[0] += 1
            dtype = _dtype(x.get("dtype"))
            shape = x.get("shape")
            if not isinstance(shape, list) or not all(
                    isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
                raise WireError("a tensor frame's shape is malformed")
            nbytes = math.prod(shape) * torch.empty((), dtype=dtype).element_size()
            at[0] += -at[0] % ALIGN
            if at[0] + nbytes > len(view):
                raise WireError("a tensor frame shorter than its tensors")
            blob = view[at[0]:at[0] + nbytes]
            at[0] += nbytes
            if nbytes == 0:
                return torch.empty(shape, dtype=dtype)
            return torch.frombuffer(blob, dtype=torch.uint8).view(dtype).view(shape)
        if len(x) != 1:
            raise WireError("a tensor frame's header is malformed")
        (kind, value), = x.items()
        if kind == "d" and isinstance(value, dict):
            return {k: tree(v) for k, v in value.items()}
        if kind in ("l", "u") and isinstance(value, list):
            items = [tree(v) for v in value]
            return items if kind == "l" else tuple(items)
        if kind == "v" and (value is None or isinstance(value, (bool, int, float, str))):
            return value
        raise WireError("a tensor frame's header is malformed")

    obj = tree(top)
    if at[0] != len(view):
        raise WireError("a tensor frame longer than its tensors")
    return obj


def write(fd: int, payload: bytes, _write=os.write) -> None:
    view = memoryview(pack(payload))
    while view:
        view = view[_write(fd, view):]


PREALLOCATE = 1 << 30  # a frame's buffer is made whole up to this size, then grows as read


def _read_exactly(fd: int, n: int, _readv=os.readv) -> bytearray:
    """`n` bytes, read straight into a buffer of their own (the tensors `untensors` makes are
    views of it). Past PREALLOCATE the buffer grows only with what arrives: a forged length
    costs no memory."""
    buf = bytearray(min(n, PREALLOCATE))
    got = 0
    while got < n:
        if got == len(buf):
            buf.extend(bytes(min(n - got, len(buf))))
        view = memoryview(buf)
        k = _readv(fd, [view[got:min(len(buf), got + (1 << 24))]])
        view.release()
        if not k:
            raise WireError(f"the other side closed the pipe {got} bytes into {n}")
        got += k
    return buf


def read(fd: int) -> bytearray:
    (size,) = HEADER.unpack(_read_exactly(fd, HEADER.size))
    if size > MAX_FRAME:
        raise WireError(f"a frame of {size} bytes: corrupt or forged")
    return _read_exactly(fd, size)
