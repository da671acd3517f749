"""CUDA's launch limits (those of an H200, compute capability 9.0), enforced before a launch
on both backends so that a configuration the GPU would refuse fails the same way on a CPU."""

from __future__ import annotations

import numbers

from grader.backends.cuda.errors import LaunchError

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_STATIC_SHARED = 48 * 1024  # static __shared__ per block
MAX_SHARED_OPTIN = 227 * 1024  # static + dynamic, with the opt-in attribute (232448 bytes)


def dims(value, what: str, kernel: str) -> tuple[int, int, int]:
    """(x[, y[, z]]) -> (x, y, z), missing sizes 1; refuses anything but integers."""
    if isinstance(value, numbers.Integral):
        value = (value,)
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{kernel}: {what} must be a tuple of 1 to 3 ints, got {value!r}") from None
    if not 1 <= len(items) <= 3 or not all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in items
    ):
        raise TypeError(f"{kernel}: {what} must be a tuple of 1 to 3 ints, got {value!r}")
    items = tuple(int(v) for v in items) + (1,) * (3 - len(items))
    return items  # type: ignore[return-value]


def check_launch(kernel: str, block: tuple[int, int, int], grid: tuple[int, int, int],
                 shared: int, static_shared: int = 0) -> None:
    """Raise LaunchError with CUDA's wording for a configuration CUDA would refuse."""
    where = f"(launching {kernel} with grid {grid}, block {block})"
    if any(b < 1 for b in block) or any(g < 1 for g in grid):
        raise LaunchError(f"invalid configuration argument: every grid and block dimension must "
                          f"be at least 1 {where}")
    threads = block[0] * block[1] * block[2]
    if threads > MAX_THREADS_PER_BLOCK:
        raise LaunchError(f"invalid configuration argument: block {block} has {threads} threads, "
                          f"the limit is {MAX_THREADS_PER_BLOCK} {where}")
    for axis, (b, limit) in enumerate(zip(block, MAX_BLOCK)):
        if b > limit:
            raise LaunchError(f"invalid configuration argument: block dimension {'xyz'[axis]} is "
                              f"{b}, the limit is {limit} {where}")
    for axis, (g, limit) in enumerate(zip(grid, MAX_GRID)):
        if g > limit:
            raise LaunchError(f"invalid configuration argument: grid dimension {'xyz'[axis]} is "
                              f"{g}, the limit is {limit} {where}")
    if not isinstance(shared, numbers.Integral) or shared < 0:
        raise TypeError(f"{kernel}: shared= is the dynamic shared memory in bytes (an int >= 0), "
                        f"got {shared!r}")
    if static_shared > MAX_STATIC_SHARED:
        raise LaunchError(f"too many resources requested for launch: {kernel} declares "
                          f"{static_shared} bytes of static __shared__ memory, the limit is "
                          f"{MAX_STATIC_SHARED} (48 KiB); use extern __shared__ for more")
    if static_shared + shared > MAX_SHARED_OPTIN:
        raise LaunchError(f"too many resources requested for launch: {kernel} asks for "
                          f"{shared} bytes of dynamic shared memory on top of {static_shared} "
                          f"static, the H200 limit is {MAX_SHARED_OPTIN} bytes per block")
