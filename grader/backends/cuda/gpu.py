"""The GPU backend: pycuda, sharing the CUDA context that torch already uses.

Order matters: torch initialises CUDA first, then pycuda.autoprimaryctx retains that same
primary context (pycuda.autoinit would create a second context, and torch's tensors would
not be valid in it). Launch limits and argument checks raise the same exceptions, with the
same messages, as on the CPU backend; launches themselves are asynchronous, as in pycuda, so a
fault inside a kernel surfaces at the caller's next synchronize.
"""

from __future__ import annotations

import re

import numpy as np

from grader.backends.cuda import args as args_mod
from grader.backends.cuda import limits, source
from grader.backends.cuda.errors import CompileError, KernelNotFound, LaunchError

_pycuda = None


def _load():
    global _pycuda
    if _pycuda is None:
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("the GPU backend needs a CUDA GPU, and torch sees none "
                               "(set TCLAB_DEVICE=cpu to run kernels on the CPU)")
        torch.cuda.init()
        torch.empty(1, device="cuda")  # make the primary context current on this thread
        try:
            import pycuda.autoprimaryctx  # noqa: F401  (joins torch's primary context)
            import pycuda.compiler
            import pycuda.driver
        except ImportError as e:
            raise RuntimeError("the GPU backend needs pycuda: pip install 'tclab[gpu]'") from e
        _pycuda = (pycuda.driver, pycuda.compiler)
    return _pycuda


def rewrite_nvcc(stderr: str) -> str:
    """nvcc's diagnostics, kept to those about kernel.cu (already numbered from line 1 of the
    student's source thanks to the #line that source.wrap_extern_c puts first)."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    keep = [re.sub(r'[^\s"]*/kernel\.cu', source.FILENAME, ln) for ln in lines
            if "kernel.cu" in ln or not re.match(r"^\S+\(\d+\)", ln)]
    # kernel.cu(6): error → kernel.cu:6: error, the CPU backend's (and g++'s) form.
    keep = [re.sub(r"\bkernel\.cu\((\d+)\)", r"kernel.cu:\1", ln) for ln in keep]
    return "\n".join(keep).strip() or stderr.strip()


class GpuModule:
    backend = "gpu"

    def __init__(self, src: str, no_extern_c: bool = False, options=None, include_dirs=None,
                 checked=None, schedule=None, **pycuda_kwargs):
        drv, compiler = _load()
        self.source = src
        self.no_extern_c, self.options = bool(no_extern_c), list(options or [])
        self.cached = False
        text = source.wrap_extern_c(src, no_extern_c)  # our wrapper: same as pycuda's + #line
        try:
            self._mod = compiler.SourceModule(text, options=options, no_extern_c=True,
                                              include_dirs=list(include_dirs or []),
                                              **pycuda_kwargs)
        except drv.CompileError as e:
            raise CompileError(rewrite_nvcc(e.stderr or str(e))) from None

    def get_function(self, name: str) -> GpuFunction:
        drv, _ = _load()
        try:
            return GpuFunction(self._mod.get_function(name), name, self)
        except drv.Error as e:
            raise KernelNotFound(f"named symbol not found: {name!r} ({e})") from None


class GpuFunction:
    def __init__(self, fn, name: str, module: GpuModule | None = None):
        drv, _ = _load()
        self._fn = fn
        self.module = module
        self.name = self.label = name
        self.static_shared_bytes = fn.get_attribute(drv.function_attribute.SHARED_SIZE_BYTES)

    def __repr__(self) -> str:
        return f"<GpuFunction {self.name}>"

    def _convert(self, index: int, arg):
        drv, _ = _load()
        args_mod.check_common(index, None, arg)
        if isinstance(arg, args_mod.In):
            wrapper = {args_mod.Out: drv.Out, args_mod.InOut: drv.InOut}.get(type(arg), drv.In)
            return wrapper(arg.array)
        if args_mod.is_tensor(arg):
            if arg.device.type != "cuda":
                raise TypeError(f"argument {index} is a {arg.device.type} tensor, but the GPU "
                                "backend needs CUDA tensors: pass t.cuda()")
            return np.uintp(arg.data_ptr())
        if isinstance(arg, np.ndarray):
            return drv.InOut(arg)  # host memory: copied to the GPU and back around the launch
        return arg  # numpy scalars, and pycuda's own objects

    def __call__(self, *arguments, block, grid=(1, 1), shared=0, stream=None,
                 time_kernel=False, schedule=None, checked=None, texrefs=None):
        drv, _ = _load()
        block3 = limits.dims(block, "block", self.name)
        grid3 = limits.dims(grid, "grid", self.name)
        limits.check_launch(self.name, block3, grid3, shared, self.static_shared_bytes)
        converted = [self._convert(i, a) for i, a in enumerate(arguments)]
        # Past 48 KiB a block (static and dynamic together) CUDA needs the opt-in for the
        # dynamic part; the CPU backend allows it outright.
        if shared and shared + self.static_shared_bytes > 48 * 1024:
            self._fn.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
        try:
            # Asynchronous, as in pycuda: a synchronize here would be timed with the kernel.
            # A kernel's fault surfaces at the caller's next synchronize (the checks make one).
            result = self._fn(*converted, block=block3, grid=grid3, shared=shared, stream=stream,
                              time_kernel=time_kernel)
        except drv.Error as e:
            raise LaunchError(f"kernel {self.name}: {e}") from None
        return result
