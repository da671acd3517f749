"""Exceptions shared by both backends, so a check catches the same class on a CPU or a GPU."""

from __future__ import annotations


class CudaError(Exception):
    """Base class of everything grader.backends.cuda raises about a kernel."""


class CompileError(CudaError):
    """The kernel source did not compile. The message is the compiler's, with file:line
    pointing into the student's source (named kernel.cu, line 1 = the first line of src)."""


class LaunchError(CudaError):
    """A launch was refused (bad configuration) or the kernel failed while running
    (out-of-bounds access, device-side assert, deadlock at a barrier)."""


class KernelNotFound(CudaError, LookupError):
    """get_function() was given a name the module does not define."""
