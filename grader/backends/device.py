"""Which device a check runs on: `TCLAB_DEVICE=auto|cpu|gpu` (auto: GPU when torch sees one).

On the CPU, Triton runs under its interpreter, which must be switched on before any
`@triton.jit` runs; `use()` does that for the current process.
"""

from __future__ import annotations

import os

CHOICES = ("auto", "cpu", "gpu")


class DeviceError(RuntimeError):
    pass


_USED: list[str] = []  # the device `use()` fixed for this process


def resolve(choice: str | None = None) -> str:
    """The device a check runs on: `choice`, else `TCLAB_DEVICE`, else auto. Where `use()`
    has fixed the device of this process, auto is that device and a GPU is not asked for
    again: a worker server must not touch CUDA before it forks, and asking torch whether
    there is a GPU (`torch.cuda.is_available()`) starts CUDA."""
    choice = (choice or os.environ.get("TCLAB_DEVICE") or "auto").lower()
    if choice not in CHOICES:
        raise DeviceError(f"TCLAB_DEVICE={choice!r}: expected one of {', '.join(CHOICES)}")
    if _USED and (choice == "auto" or choice == _USED[-1]):
        return _USED[-1]
    if choice == "auto":
        import torch

        return "gpu" if torch.cuda.is_available() else "cpu"
    if choice == "gpu":
        import torch

        if not torch.cuda.is_available():
            raise DeviceError("--device gpu asked for, but torch sees no CUDA device")
    return choice


def use(device: str) -> None:
    """Fix the device for this process (and its children) before kernels are defined; without
    a GPU that means Triton's interpreter (grader.backends.interpreter)."""
    from grader.backends import interpreter
    interpreter.ensure(device)
    _USED.append(device)


def torch_device(device: str) -> str:
    return "cuda" if device == "gpu" else "cpu"
