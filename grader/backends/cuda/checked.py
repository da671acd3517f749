"""Checked mode: every buffer a pointer argument reaches is copied next to an inaccessible
page, so the first out-of-bounds read faults, and the fault names the kernel and argument.

Two runs: with each copy's END against a guard page (reads past the end), then with each
copy's START after one (reads before the start, e.g. x[i - 1] at i = 0). The first run's
results are copied back; the second run works on fresh copies of the original inputs and its
results are dropped, so a kernel that accumulates (+=, atomics) is not applied twice.
"""

from __future__ import annotations

import ctypes
import warnings

from grader.backends.cuda import buffers, runtime
from grader.backends.cuda.args import Arg

ALIGN = 16  # keeps float4 / int4 loads of the copy aligned, as cudaMalloc's 256 would


class Guarded:
    """One region's copy in guarded memory."""

    def __init__(self, region: buffers.Region, data: bytes, at_end: bool):
        rt = runtime.library()
        base, length, guard = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64()
        addr = rt.tclab_rt_map_guarded(region.nbytes, int(at_end), ALIGN, ctypes.byref(base),
                                       ctypes.byref(length), ctypes.byref(guard))
        if not addr:
            raise MemoryError(f"checked mode could not map {region.nbytes} bytes")
        self.region, self.at_end = region, at_end
        self.data, self.base, self.length = addr, base.value, length.value
        self.guard, self.page = guard.value, runtime.page_size()
        ctypes.memmove(self.data, data, region.nbytes)

    def translate(self, pointer: int) -> int:
        return self.data + (pointer - self.region.start)

    def hit(self, address: int) -> bool:
        return self.guard <= address < self.guard + self.page

    def copy_back(self) -> None:
        ctypes.memmove(self.region.start, self.data, self.region.nbytes)

    def free(self) -> None:
        runtime.library().tclab_rt_unmap(self.base, self.length)


def launch(fn, packed: list[Arg], block, grid, shared: int, schedule: str) -> None:
    """Run fn under guard pages (see the module docstring); raise LaunchError on a fault."""
    unknown = buffers.resolve(packed, skip_frames=3)
    if unknown:
        warnings.warn(
            f"checked mode: {', '.join(a.label for a in unknown)} of {fn.label} "
            "point(s) to memory of unknown size and run unguarded; pass the array or tensor, "
            "or wrap the call in grader.backends.cuda.track(...)", stacklevel=3)
    regions = buffers.regions(packed)
    originals = [r.read() for r in regions]
    # Pass two re-runs the kernel; with an unguarded pointer its writes would land twice.
    passes = (True, False) if not unknown else (True,)
    for at_end in passes:
        copies = [Guarded(r, data, at_end) for r, data in zip(regions, originals)]
        try:
            payloads = []
            for a in packed:
                copy = next((c for c in copies if any(a is x for x in c.region.args)), None)
                if copy is None:
                    payloads.append(a.payload)
                else:
                    payloads.append(copy.translate(a.pointer).to_bytes(8, "little"))
            desc = fn.run(payloads, block, grid, shared, schedule)
            fn.raise_for(desc, packed, copies)
            if at_end:
                for c in copies:
                    c.copy_back()
        finally:
            for c in copies:
                c.free()


def _near(address: int, packed: list[Arg]) -> str:
    """'… 4 bytes past the end of argument 1 ('y') …' for an address near an argument."""
    best = None
    for a in packed:
        if a.buffer is None:
            continue
        lo, hi = a.buffer.start, a.buffer.start + a.buffer.nbytes
        dist = lo - address if address < lo else address - hi if address >= hi else 0
        if best is None or dist < best[0]:
            best = (dist, a, lo, hi)
    if best is None or best[0] > 1 << 20:
        return ""
    dist, a, lo, hi = best
    if address >= hi:
        owner = buffers.describe_owner(a.buffer)
        return f" ({address - hi} bytes past the end of {a.label}, {owner})"
    if address < lo:
        return f" ({lo - address} bytes before the start of {a.label})"
    return f" (inside {a.label})"


def describe_fault(kernel: str, desc, packed: list[Arg], copies=None) -> str:
    """The message for a fault: which argument, which element, which thread."""
    address = desc.fault_addr
    access = {1: "write", 0: "read"}.get(desc.fault_write, "access")
    where = f"block {tuple(desc.err_block)}, thread {tuple(desc.err_thread)}"
    if desc.fault_write == runtime.FAULT_MISALIGNED:
        return (f"misaligned address in kernel {kernel}, by {where}: a vector load or store "
                "(uint4, float4, int4, double2: 16 bytes; float2, int2: 8) at an address that "
                "is not a multiple of its size (or through a pointer that is no address at "
                "all). Check the pointer's alignment (the tensor's data_ptr() and the offset "
                "added to it) before reading it as a vector, or read the unaligned part element "
                "by element")
    for c in copies or []:
        if not c.hit(address):
            continue
        # The arguments pointing into this region; name the one whose pointer is closest below.
        args = sorted(c.region.args, key=lambda a: a.pointer)
        arg = next((a for a in reversed(args) if c.translate(a.pointer) <= address), args[0])
        offset = address - c.translate(arg.pointer)
        item = max(arg.buffer.itemsize, 1)
        side = "past the end" if c.at_end else "before the start"
        element = offset // item if offset >= 0 else -((-offset + item - 1) // item)
        return (f"out-of-bounds {access} in kernel {kernel}: {arg.label} was accessed "
                f"{side} of its buffer ({buffers.describe_owner(arg.buffer)}), at element "
                f"{element} (byte offset {offset}), by {where}. Check the bounds test "
                f"(e.g. if (i < n)) before every load")
    hint = ("" if copies is not None else
            "; run with checked=True (or TCLAB_CUDA_CHECKED=1) to find the argument")
    return (f"an illegal memory access was encountered in kernel {kernel}: {access} at address "
            f"{address:#x}{_near(address, packed)}, by {where}{hint}")
