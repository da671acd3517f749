"""Race detection by schedule comparison (CPU backend).

Between two sync points the runtime runs a block's threads one after another, each until its
next barrier: ascending under "forward", descending under "reverse". A correct kernel gives
the same result under both; a kernel that reads what another thread writes without a
__syncthreads() in between sees the write under one order and not under the other. So: run
the kernel under both on fresh copies of its buffers and compare. One pool thread is used,
so that blocks run in the same order in both runs and only the thread order differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from grader.backends.cuda import buffers, limits

_NUMPY = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
          "int32": np.int32, "int64": np.int64, "int16": np.int16, "int8": np.int8,
          "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
          "bool": np.bool_}


@dataclass
class ScheduleComparison:
    kernel: str
    schedules: tuple[str, str]
    mismatches: list[str] = field(default_factory=list)

    @property
    def race(self) -> bool:
        """True when the two schedules gave different results."""
        return bool(self.mismatches)

    def __str__(self) -> str:
        a, b = self.schedules
        if not self.mismatches:
            return f"{self.kernel}: same results under the {a} and {b} thread schedules"
        return (f"{self.kernel}: results depend on the order in which threads run, a data race "
                f"(usually a missing __syncthreads() between writing shared memory and reading "
                f"what another thread wrote):\n  " + "\n  ".join(self.mismatches))


def _compare(arg, a: bytes, b: bytes, schedules, rtol: float, atol: float) -> str | None:
    if a == b:
        return None
    dtype = _NUMPY.get(arg.buffer.dtype, np.uint8)
    n = len(a) // np.dtype(dtype).itemsize
    x = np.frombuffer(a, dtype=dtype, count=n)
    y = np.frombuffer(b, dtype=dtype, count=n)
    if np.issubdtype(dtype, np.floating):
        same = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
    else:
        same = x == y
    if same.all():
        return None
    bad = np.flatnonzero(~same)
    i = int(bad[0])
    return (f"{arg.label}: {bad.size} of {n} elements differ between the {schedules[0]} and "
            f"{schedules[1]} schedules; first at element {i}: {x[i]!r} vs {y[i]!r}")


def run_twice_and_compare(fn, *arguments, block, grid=(1, 1), shared: int = 0,
                          schedules: tuple[str, str] = ("forward", "reverse"),
                          rtol: float = 1e-5, atol: float = 1e-6,
                          seed: int = 0) -> ScheduleComparison:
    """Run a CPU-backend kernel under two thread schedules on copies of its buffers and
    compare every buffer afterwards. The arguments themselves are left untouched.

    Raw pointers (np.uintp) are resolved to their arrays/tensors from the calling frames or
    grader.backends.cuda.track(...); one that cannot be resolved raises TypeError, since its memory
    could not be copied."""
    from grader.backends.cuda.cpu import CpuFunction

    if not isinstance(fn, CpuFunction):
        raise TypeError("run_twice_and_compare needs a kernel of the CPU backend "
                        "(TCLAB_DEVICE=cpu): a GPU does not let us choose the thread order")
    block3 = limits.dims(block, "block", fn.label)
    grid3 = limits.dims(grid, "grid", fn.label)
    limits.check_launch(fn.label, block3, grid3, shared, fn.static_shared_bytes)
    packed = fn.pack(arguments)
    unknown = buffers.resolve(packed, skip_frames=2)
    if unknown:
        raise TypeError(f"run_twice_and_compare: {', '.join(a.label for a in unknown)} "
                        "point(s) to memory of unknown size; pass the arrays/tensors themselves "
                        "or wrap the call in grader.backends.cuda.track(...)")
    regions = buffers.regions(packed)
    originals = [r.read() for r in regions]
    results = []
    for schedule in schedules:
        copies = []
        for data in originals:
            raw = np.empty(len(data) + 64, dtype=np.uint8)
            start = (-raw.ctypes.data) % 64  # as aligned as an allocator would give
            view = raw[start : start + len(data)]
            view[:] = np.frombuffer(data, dtype=np.uint8)
            copies.append(view)
        payloads = []
        for a in packed:
            k = next((i for i, r in enumerate(regions) if any(a is x for x in r.args)), None)
            if k is None:
                payloads.append(a.payload)
            else:
                address = copies[k].ctypes.data + (a.pointer - regions[k].start)
                payloads.append(address.to_bytes(8, "little"))
        desc = fn.run(payloads, block3, grid3, shared, schedule, workers=1, seed=seed)
        fn.raise_for(desc, packed)
        results.append([c.tobytes() for c in copies])
    mismatches = []
    for k, region in enumerate(regions):
        arg = region.args[0]
        m = _compare(arg, results[0][k], results[1][k], schedules, rtol, atol)
        if m:
            mismatches.append(m)
    return ScheduleComparison(fn.label, tuple(schedules), mismatches)
