"""Triton's global scratch memory on a GPU: `give_triton()`, once per process that launches
kernels there (`interpreter.ensure("gpu")` calls it)."""

from __future__ import annotations


def give_triton() -> None:
    """Give Triton, once per process, an allocator for the global scratch memory of a kernel
    that builds its own tensor descriptors (`tl.make_tensor_descriptor`): without one such a
    launch fails on a GPU with "no allocator was set", and Triton's allocator is a context
    variable, so a `triton.set_allocator` in the main thread would not reach a launch from
    another thread. The default of that variable becomes torch's caching allocator on the
    launch's device (a no-op until a kernel asks: nothing here touches CUDA, a worker forks
    after it); an allocator the process set itself stays. The interpreter needs none."""
    from contextvars import ContextVar

    from triton.runtime import _allocation as alloc

    current = getattr(alloc, "_allocator", None)
    if not isinstance(current, ContextVar) or current.get() is not alloc._NULL_ALLOCATOR:
        return

    def scratch(size: int, alignment: int, stream):
        import torch

        return torch.empty(size, dtype=torch.int8, device="cuda")

    alloc._allocator = ContextVar("_allocator", default=scratch)
