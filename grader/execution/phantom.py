"""The host side of the trust boundary: tensors with a shape and an address, but no memory.

A student's launcher runs in the host process against `Phantom` tensors. They carry what a
launcher honestly needs (shape, strides, dtype, device, an address for `data_ptr()`) and no
readable memory. What the launcher does to them is either *recorded* into a `Stream` for the
device process to replay, or refused:

    recorded   allocations (empty, zeros, *_like, ...), fills with a constant, views, the
               copies an exercise allows (`allowed_ops`), Triton launches, SourceModule launches
    refused    every other torch op, .numpy(), .tolist(), .item(), dlpack, the storage, a
               host-made tensor passed to a kernel: `HostCompute` names what was touched

Nothing here guards anything: a launcher that undoes it only breaks its own stream, because
the host never holds device data. (Raw memory at a phantom's address is unmapped: a read
faults.) Triton's heuristics, autotune configs and grid functions are evaluated here, on
phantoms, and shipped as values: the device process runs no student Python.
"""

from __future__ import annotations

import contextlib
import numbers
import os
import threading
from dataclasses import dataclass, field

import numpy as np
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_map

UPLOAD_LIMIT = 1 << 20  # bytes of one host-made tensor sent to the device (a lookup table)
# Phantom addresses: buffer k spans [BASE + k*SPAN, BASE + (k+1)*SPAN), far from anything
# mapped in a Linux process (its libraries and heap sit near 0x7f.. and 0x55..).
BASE = 0x2000_0000_0000
SPAN = 1 << 36

# Ops that only describe memory already there: run on the meta twin, the result shares it.
VIEWS = {
    "view", "_unsafe_view", "reshape", "as_strided", "alias", "detach", "t", "transpose",
    "permute", "expand", "select", "slice", "unsqueeze", "squeeze", "flatten", "unflatten",
    "view_as", "unfold", "diagonal", "narrow", "split", "chunk", "unbind", "movedim",
    "_reshape_alias", "lift_fresh", "split_with_sizes", "view_as_real", "view_as_complex",
    "unsafe_split", "unsafe_chunk", "is_contiguous", "stride", "size", "numel",
    "sym_size", "sym_stride", "sym_numel", "is_same_size", "dim", "resolve_conj", "resolve_neg",
}
# Ops that make new memory (fills recorded where they have one).
FACTORIES = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros",
    "zeros_like", "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full",
}
FILL_VALUE = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1,
              "new_ones": 1}


class HostCompute(RuntimeError):
    """The launcher touched device data on the host."""


DEVICE_VALUES = "device values"  # the reason of a refusal that read them (Recorder.refuse)


@dataclass
class Stream:
    """What one launcher call asked the device to do, in order; plain data (JSON)."""

    ops: list[dict] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # what the launcher touched on the host

    def to_dict(self) -> dict:
        return {"ops": self.ops, "refused": self.refused}


class Recorder:
    """The phantoms of one launcher call and the stream they record."""

    def __init__(self, device: str, allowed_ops=()):
        self.tdev = torch.device("cuda", 0) if device == "gpu" else torch.device("cpu")
        self.allowed = set(allowed_ops)
        self.stream = Stream()
        self._storages: dict[int, int] = {}  # id of a meta storage -> buffer handle
        self._sizes: dict[int, int] = {}  # handle -> bytes
        self._keep: list[torch.Tensor] = []  # meta bases, alive while recording
        self.modules: dict[int, int] = {}  # id of a recorded CUDA module -> its index
        self.notify = None  # notify(name, message): a refusal, as it happens (the host's)
        self.pid = os.getpid()  # a refusal in a forked child says so
        self.uploaded = 0  # bytes of host-made tensors sent with the stream

    # --- buffers ------------------------------------------------------------------------
    def _handle(self, meta: torch.Tensor, new: bool) -> int:
        key = meta.untyped_storage()._cdata
        if key not in self._storages:
            handle = len(self._sizes)
            self._storages[key] = handle
            self._sizes[handle] = meta.untyped_storage().nbytes()
            self._keep.append(meta)
            if new:
                self.stream.ops.append({"op": "alloc", "buf": handle,
                                        "bytes": self._sizes[handle]})
        return self._storages[key]

    def given(self, geometry: dict) -> Phantom:
        """A phantom for a tensor the device holds: {shape, stride, offset, dtype, bytes}."""
        dtype = getattr(torch, geometry["dtype"])
        itemsize = torch.empty(0, dtype=dtype).element_size()
        base = torch.empty(geometry["bytes"] // itemsize, dtype=dtype, device="meta")
        meta = base.as_strided(geometry["shape"], geometry["stride"], geometry["offset"])
        self._handle(base, new=False)
        return Phantom(meta, self)

    def wrap(self, meta: torch.Tensor, new: bool) -> Phantom:
        self._handle(meta, new)
        return Phantom(meta, self)

    def upload(self, t: torch.Tensor) -> Phantom:
        """A tensor made on the host (constants: a lookup table), sent to the device with the
        stream: it cannot hold device data, the host has none."""
        t = t.detach().contiguous()
        nbytes = t.numel() * t.element_size()
        self.uploaded += nbytes
        if nbytes > UPLOAD_LIMIT or self.uploaded > 4 * UPLOAD_LIMIT:
            raise self.refuse(f"a tensor of {nbytes} bytes made on the host",
                              f"constants up to {UPLOAD_LIMIT >> 20} MiB reach the device; "
                              "compute larger data in a kernel")
        import base64

        meta = torch.empty(t.shape, dtype=t.dtype, device="meta")
        out = self.wrap(meta, new=True)
        raw = t.reshape(-1).view(torch.uint8)
        self.stream.ops.append({"op": "upload", "dst": self.ref(out),
                                "data": base64.b64encode(raw.numpy().tobytes()).decode()})
        return out

    def fill(self, t: Phantom, value) -> None:
        """A fill of `t` with a constant (nothing for None: an empty allocation)."""
        if value is not None:
            self.stream.ops.append({"op": "fill", "dst": self.ref(t), "value": _number(value)})

    def ref(self, t: Phantom) -> dict:
        if t._rec is not self:
            raise self.refuse("a tensor kept from an earlier call",
                              "each call computes from the tensors it is given")
        m = t._meta
        return {"buf": self._handle(m, new=False), "offset": m.storage_offset(),
                "shape": list(m.shape), "stride": list(m.stride()),
                "dtype": str(m.dtype).removeprefix("torch.")}

    def address(self, t: Phantom) -> int:
        m = t._meta
        return BASE + self._handle(m, new=False) * SPAN + m.storage_offset() * m.element_size()

    def pointer(self, value: int) -> dict | None:
        """{"buf", "byte"} for an integer inside a phantom buffer's address range."""
        handle, byte = divmod(int(value) - BASE, SPAN)
        if 0 <= handle < len(self._sizes) and int(value) >= BASE:
            return {"buf": handle, "byte": byte}
        return None

    def refuse(self, what: str, why: str = "") -> HostCompute:
        """The refusal of `what` (a torch op, a method), named in the stream and raised."""
        thread = threading.current_thread()
        where = " in a forked process" if os.getpid() != self.pid else \
            "" if thread is threading.main_thread() else f" in a helper thread ({thread.name})"
        if why == DEVICE_VALUES:
            name = f"{what}{where}, a device value read on the host"
            text = (f"the launcher reads device values on the host ({what}{where}): it runs "
                    "where the data is not, so its host logic cannot depend on them: size "
                    "launches from shapes, or compute the value in a kernel")
        else:
            name = f"{what}{f' ({why})' if why else ''}{where}"
            text = (f"the launcher computed on the host: {name}: a launcher only allocates, "
                    "views and launches; the data is on the device")
        if name not in self.stream.refused and len(self.stream.refused) < 10:
            self.stream.refused.append(name)
            if self.notify is not None:  # told at once: the launcher may never return
                self.notify(name, text)
        return HostCompute(text)

    # --- arguments ----------------------------------------------------------------------
    def arg(self, value, where: str):
        """One kernel argument as plain data."""
        if isinstance(value, Phantom):
            return {"t": self.ref(value)}
        if isinstance(value, torch.Tensor):
            if value.device.type == "cpu" and self.tdev.type == "cpu":
                return {"t": self.ref(self.upload(value))}
            raise self.refuse(f"{where}: a tensor on the host's memory",
                              "move it to the device first: .to(x.device)")
        if isinstance(value, np.ndarray):
            raise self.refuse(f"{where}: a numpy array", "pass device tensors or pointers")
        if isinstance(value, np.generic):
            ptr = self.pointer(value) if isinstance(value, np.integer) else None
            if ptr is not None:
                return {"ptr": ptr, "np": value.dtype.name}
            return {"v": value.item(), "np": value.dtype.name}
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return {"v": value}
        if isinstance(value, numbers.Integral):
            ptr = self.pointer(value)
            return {"ptr": ptr} if ptr is not None else {"v": int(value)}
        if isinstance(value, numbers.Real):
            return {"v": float(value)}
        dtype = _tl_dtype(value)
        if dtype is not None:
            return {"tl": dtype}
        inner = getattr(value, "value", None)  # tl.constexpr
        if type(value).__name__ == "constexpr":
            return self.arg(inner, where)
        if isinstance(value, (tuple, list)):
            return {"seq": [self.arg(v, where) for v in value]}
        if isinstance(value, torch.dtype):
            return {"torch": str(value).removeprefix("torch.")}
        raise self.refuse(f"{where}: an argument of type {type(value).__name__}",
                          "kernels take tensors, pointers and numbers")

    # --- recording ------------------------------------------------------------------------
    @contextlib.contextmanager
    def recording(self):
        with _Factories(self):
            yield self


def refusal(exc: BaseException, rec: Recorder | None) -> str | None:
    """The one-line summary of a launcher call that touched device data on the host (raised,
    or refused and caught before something else went wrong), else None."""
    if isinstance(exc, HostCompute):
        return str(exc)
    if rec is not None and rec.stream.refused:
        return f"the launcher computed on the host: {rec.stream.refused[0]}"
    return None


def _tl_dtype(value) -> str | None:
    try:
        import triton.language as tl
    except ImportError:
        return None
    return value.name if isinstance(value, tl.dtype) else None


class Phantom(torch.Tensor):
    """A device tensor as the host sees it: geometry and an address, no data."""

    @staticmethod
    def __new__(cls, meta: torch.Tensor, rec: Recorder):
        t = torch.Tensor._make_wrapper_subclass(
            cls, meta.size(), strides=meta.stride(), storage_offset=meta.storage_offset(),
            dtype=meta.dtype, device=rec.tdev, requires_grad=False)
        t._meta, t._rec = meta, rec
        return t

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        rec = next(a._rec for a in _flat(args, kwargs) if isinstance(a, Phantom))
        return _dispatch(rec, func, args, kwargs or {})

    # Where a launcher would read values into Python: refused by name.
    def data_ptr(self) -> int:
        return self._rec.address(self)

    def __repr__(self, *, tensor_contents=None) -> str:
        return (f"tensor(<on the device: no values on the host>, size={tuple(self.shape)}, "
                f"dtype={self.dtype}, device='{self.device}')")

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return self.__repr__()

    def _values(self, name: str, why: str = "its values read into Python"):
        raise self._rec.refuse(f"Tensor.{name}()", why)

    def numpy(self, *a, **k):
        self._values("numpy", "numpy computing on a tensor")

    def tolist(self):
        self._values("tolist")

    def item(self):
        raise self._rec.refuse("Tensor.item()", DEVICE_VALUES)

    def __array__(self, *a, **k):
        self._values("__array__", "numpy computing on a tensor")

    def __dlpack__(self, *a, **k):
        self._values("__dlpack__", "a dlpack view of device memory")

    def __dlpack_device__(self, *a, **k):
        self._values("__dlpack_device__", "a dlpack view of device memory")

    def untyped_storage(self):
        self._values("untyped_storage", "the tensor's memory read on the host")

    def storage(self):
        self._values("storage", "the tensor's memory read on the host")

    def __bool__(self):
        raise self._rec.refuse("bool(tensor)", DEVICE_VALUES)

    def __float__(self):
        raise self._rec.refuse("float(tensor)", DEVICE_VALUES)

    def __int__(self):
        raise self._rec.refuse("int(tensor)", DEVICE_VALUES)

    def __index__(self):
        raise self._rec.refuse("a tensor used as an index", DEVICE_VALUES)

    def __reduce_ex__(self, proto):
        self._values("__reduce_ex__", "a pickled tensor")

    def __iter__(self):
        raise self._rec.refuse("iterating over a tensor", "its values read into Python")

    @property
    def __cuda_array_interface__(self):
        raise self._rec.refuse("Tensor.__cuda_array_interface__",
                               "another library's view of device memory")

    # Indexing from Python: on the meta twin (torch's own indexing sets a device guard, which
    # would start CUDA in a process that has none).
    def __getitem__(self, index):
        rec = self._rec
        if any(isinstance(i, torch.Tensor) for i in _flat(index, {})):
            raise rec.refuse("indexing with a tensor", "its values read into Python")
        return rec.wrap(self._meta[index], new=False)

    def __setitem__(self, index, value):
        rec = self._rec
        if isinstance(value, torch.Tensor) or any(
                isinstance(i, torch.Tensor) for i in _flat(index, {})):
            raise rec.refuse("an assignment from a tensor", "device data copied on the host")
        rec.fill(rec.wrap(self._meta[index], new=False), value)


def _flat(args, kwargs):
    out = []
    tree_map(out.append, (args, kwargs))
    return out


def _meta_of(value):
    return value._meta if isinstance(value, Phantom) else value


def _dispatch(rec: Recorder, func, args, kwargs):
    name = func.overloadpacket.__name__
    if name in VIEWS or name in FACTORIES:
        metas = tree_map(_meta_of, args)
        mkw = tree_map(_meta_of, kwargs)
        if "device" in mkw:
            mkw["device"] = "meta"
        out = func(*metas, **mkw)

        def wrap(o):
            if not isinstance(o, torch.Tensor):
                return o
            known = o.untyped_storage()._cdata in rec._storages
            return rec.wrap(o, new=name in FACTORIES and not known)
        result = tree_map(wrap, out)
        if name in FACTORIES and isinstance(result, Phantom):
            rec.fill(result, _factory_fill(name, args, kwargs))
        return result
    if name in ("fill_", "zero_") or (name == "copy_" and _scalar_source(args)):
        dst = args[0]
        value = 0 if name == "zero_" else args[1]
        if isinstance(value, Phantom):
            raise rec.refuse(f"torch.ops.aten.{name}", "a fill from device data")
        if isinstance(value, torch.Tensor):
            value = value.item()
        rec.fill(dst, value)
        return dst
    if name in ("copy_", "clone") and name in rec.allowed:
        if name == "copy_" and all(isinstance(a, Phantom) for a in args[:2]):
            rec.stream.ops.append({"op": "copy", "dst": rec.ref(args[0]),
                                   "src": rec.ref(args[1])})
            return args[0]
        if name == "clone" and isinstance(args[0], Phantom):
            meta = torch.empty_like(args[0]._meta, memory_format=torch.contiguous_format)
            out = rec.wrap(meta, new=True)
            rec.stream.ops.append({"op": "copy", "dst": rec.ref(out), "src": rec.ref(args[0])})
            return out
    if name in ("_local_scalar_dense", "is_nonzero", "equal"):
        raise rec.refuse("a tensor's value read on the host", DEVICE_VALUES)
    if name in ("_to_copy", "_copy_from", "_copy_from_and_resize") or name == "copy_":
        raise rec.refuse(f"torch.ops.aten.{name}", "device data copied to or from the host")
    raise rec.refuse(f"torch.ops.aten.{name}")


def _factory_fill(name: str, args, kwargs):
    """The value a factory fills its tensor with (zeros, ones, full, ...), or None (empty)."""
    if name in FILL_VALUE:
        return FILL_VALUE[name]
    position = {"full": 1, "full_like": 1, "new_full": 2}.get(name)
    if position is None:
        return None
    return args[position] if len(args) > position else kwargs.get("fill_value")


def _scalar_source(args) -> bool:
    src = args[1] if len(args) > 1 else None
    return isinstance(src, torch.Tensor) and not isinstance(src, Phantom) and src.numel() == 1


def _number(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(value)


def _same_device(device, tdev: torch.device) -> bool:
    try:
        d = torch.device(device)
    except (RuntimeError, TypeError):
        return False
    return d.type == tdev.type and (d.index is None or d.index == (tdev.index or 0))


# In-place methods of a phantom that the recorder serves without torch's dispatcher (_Factories).
IN_PLACE = {"copy_": torch.ops.aten.copy_.default, "fill_": torch.ops.aten.fill_.Scalar,
            "zero_": torch.ops.aten.zero_.default}


class _Factories(TorchFunctionMode):
    """torch.empty(..., device=...) and the like make phantoms while a launcher records: the
    host has no device (on a GPU machine, no CUDA context), so nothing else could serve."""

    def __init__(self, rec: Recorder):
        super().__init__()
        self.rec = rec

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if name in IN_PLACE and args and isinstance(args[0], Phantom):
            # Straight to the recorder: torch's own copy_ of a CUDA tensor (a phantom is one on
            # a GPU machine) starts CUDA before its dispatch reaches the phantom, in a process
            # that has no GPU ("no CUDA-capable device is detected").
            return _dispatch(self.rec, IN_PLACE[name], args, kwargs)
        if name in FACTORIES and not any(isinstance(a, torch.Tensor) for a in args):
            if _same_device(kwargs.get("device") or "cpu", self.rec.tdev):
                kwargs["device"] = "meta"
                kwargs.pop("pin_memory", None)
                out = self.rec.wrap(func(*args, **kwargs), new=True)
                self.rec.fill(out, _factory_fill(name, args, kwargs))
                return out
        if name in ("tensor", "as_tensor") and _same_device(kwargs.get("device"), self.rec.tdev):
            kwargs["device"] = "cpu"
            return self.rec.upload(func(*args, **kwargs))
        if name in ("to", "cuda") and args and isinstance(args[0], torch.Tensor) and \
                not isinstance(args[0], Phantom):
            target = kwargs.get("device", args[1] if len(args) > 1 and not isinstance(
                args[1], torch.dtype) else ("cuda" if name == "cuda" else None))
            if target is not None and not isinstance(target, torch.Tensor) and \
                    _same_device(target, self.rec.tdev) and self.rec.tdev.type == "cuda":
                dtype = kwargs.get("dtype") or next(
                    (a for a in args[1:] if isinstance(a, torch.dtype)), None)
                host = args[0].to(dtype) if dtype is not None else args[0]
                return self.rec.upload(host)
        return func(*args, **kwargs)


# --- what the launcher calls: Triton launches and SourceModule ------------------------------

class Launching:
    """Records the launches of one launcher call (bound as the current recorder)."""

    current: Recorder | None = None


def _current() -> Recorder:
    rec = Launching.current
    if rec is None:
        raise RuntimeError("a kernel was launched outside a launcher call (at import time?): "
                           "launch kernels from the launcher only")
    return rec


def _named(jit, args, kwargs) -> dict:
    return {**dict(zip(jit.arg_names, args)), **kwargs}


def _eval_grid(grid, meta: dict) -> list[int]:
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, numbers.Integral):
        grid = (grid,)
    return [int(g) for g in grid]


def _variants(obj, args, kwargs, grid, rec: Recorder) -> tuple[str, dict | None, list[dict]]:
    """Walk heuristics and autotune down to the JIT function: its name, the autotuner's
    settings, and one launch (kwargs, grid, config) per config (one without autotune)."""
    autotune, chain, kinds = None, obj, []
    while type(chain).__name__ in ("Autotuner", "Heuristics"):
        kinds.append(chain)
        chain = chain.fn
    jit = chain
    variants = [({**kwargs}, None)]
    for layer in kinds:
        if type(layer).__name__ == "Heuristics":
            for kw, _ in variants:
                for v, heur in layer.values.items():
                    kw[v] = heur({**dict(zip(layer.arg_names, args)), **kw})
        else:
            if autotune is not None:
                raise rec.refuse("two @triton.autotune on one kernel")
            autotune = {"key": list(layer.keys),
                        "reset_to_zero": list(getattr(layer, "reset_to_zero", None) or []),
                        "restore_value": list(getattr(layer, "restore_value", None) or [])}
            configs = list(layer.configs)
            variants = [({**kw, **c.kwargs}, c) for kw, _ in variants for c in configs]
    launches = []
    for kw, config in variants:
        meta = _named(jit, args, kw)
        entry = {"kwargs": kw, "grid": _eval_grid(grid, meta)}
        if config is not None:
            entry["config"] = {k: getattr(config, k) for k in
                               ("num_warps", "num_stages", "num_ctas", "maxnreg")
                               if getattr(config, k, None) is not None}
        launches.append(entry)
    return jit.__name__ if hasattr(jit, "__name__") else jit.fn.__name__, autotune, launches


def record_triton(obj, args, kwargs, grid) -> None:
    rec = _current()
    kwargs = {k: v for k, v in kwargs.items() if k != "warmup"}
    name, autotune, launches = _variants(obj, list(args), kwargs, grid, rec)
    where = f"{name}[grid]"
    op = {"op": "triton", "kernel": name, "autotune": autotune,
          "args": [rec.arg(a, where) for a in args], "launches": []}
    for entry in launches:
        op["launches"].append({"kwargs": {k: rec.arg(v, where) for k, v in entry["kwargs"].items()},
                               "grid": entry["grid"], "config": entry.get("config")})
    rec.stream.ops.append(op)


def _jit_name(obj) -> str:
    fn = getattr(obj, "fn", None)
    return getattr(fn, "__name__", None) or getattr(obj, "__name__", "a Triton kernel")


def _triton_classes() -> list:
    from triton.runtime import autotuner, jit

    classes = [jit.JITFunction, autotuner.Autotuner, autotuner.Heuristics]
    try:
        from triton.runtime import interpreter

        classes.append(interpreter.InterpretedFunction)
    except ImportError:
        pass
    return classes


def _triton_run(self, *args, grid=None, warmup=False, **kwargs):
    if warmup:
        raise _current().refuse(f"{_jit_name(self)}.warmup()", "compiles on the device only")
    return record_triton(self, args, kwargs, grid)


def _triton_getitem(self, grid):
    return lambda *a, **k: _triton_run(self, *a, grid=grid, **k)


def _cuda_call(self, *args, block, grid=(1, 1), shared=0, stream=None, **_ignored):
    """A real SourceModule function (compiled in a notebook) called while recording."""
    module = self.module
    record_cuda(module, module.source, getattr(module, "no_extern_c", False),
                getattr(module, "options", []), self.name, args, block, grid, shared, stream)


def _patches() -> list[tuple[object, str, object]]:
    from triton.runtime import jit

    found = [(cls, "run", _triton_run) for cls in _triton_classes()]
    found.append((jit.KernelInterface, "__getitem__", _triton_getitem))
    for module, name in (("grader.backends.cuda.cpu", "CpuFunction"), ("grader.backends.cuda.gpu",
                                                                       "GpuFunction")):
        try:
            import importlib

            found.append((getattr(importlib.import_module(module), name), "__call__", _cuda_call))
        except (ImportError, AttributeError):
            pass
    return found


@contextlib.contextmanager
def intercepting():
    """Launches record instead of running while open (a notebook's `check()`: its kernels
    stay what they are outside)."""
    saved = [(owner, name, owner.__dict__.get(name)) for owner, name, _ in _patches()]
    for owner, name, fn in _patches():
        setattr(owner, name, fn)
    try:
        yield
    finally:
        for owner, name, fn in saved:
            if fn is None:
                delattr(owner, name)
            else:
                setattr(owner, name, fn)


def install_triton() -> None:
    """Every Triton launch in this process records instead of running."""
    for owner, name, fn in _patches():
        setattr(owner, name, fn)


class HostModule:
    """SourceModule in the host: the source is kept for the device, which compiles it."""

    def __init__(self, source: str, no_extern_c: bool = False, options=None,
                 include_dirs=None, **_ignored):
        if not isinstance(source, str):
            raise TypeError(f"SourceModule takes the CUDA C source as a str, not "
                            f"{type(source).__name__}")
        self.source, self.no_extern_c = source, bool(no_extern_c)
        self.options = [str(o) for o in options or []]

    def get_function(self, name: str) -> HostFunction:
        return HostFunction(self, str(name))


class HostFunction:
    def __init__(self, module: HostModule, name: str):
        self.module, self.name = module, name

    def __call__(self, *args, block, grid=(1, 1), shared=0, stream=None, **_ignored):
        m = self.module
        record_cuda(m, m.source, m.no_extern_c, m.options, self.name, args, block, grid,
                    shared, stream)

    def prepare(self, *a, **k):
        return self

    def prepared_call(self, grid, block, *args, shared_size=0):
        return self(*args, block=block, grid=grid, shared=shared_size)


def record_cuda(module, source: str, no_extern_c: bool, options, name: str, args, block,
                grid, shared, stream) -> None:
    rec = _current()
    where = f"{name}()"
    key = id(module)
    if key not in rec.modules:
        rec.modules[key] = len(rec.modules)
        rec.stream.ops.append({"op": "module", "id": rec.modules[key], "source": source,
                               "no_extern_c": bool(no_extern_c),
                               "options": [str(o) for o in options or []]})
    rec.stream.ops.append({
        "op": "cuda", "module": rec.modules[key], "function": str(name),
        "args": [rec.arg(a, where) for a in args],
        "block": [int(b) for b in block], "grid": [int(g) for g in grid],
        "shared": int(shared)})


def install_cuda() -> None:
    """SourceModule, wherever a submission imports it from, records: backends.cuda's, and each
    grader module's that imported it already (the setup cell takes it from the notebook
    module, which a worker server imports ahead); a module imported later gets this one."""
    import sys

    import grader.backends.cuda

    real = grader.backends.cuda.SourceModule
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] == "grader" and getattr(module, "SourceModule", None) is real:
            module.SourceModule = HostModule


class _Stream:
    """A stream or event on the host: it orders nothing (the device replays the stream on the
    one it times), and says so by doing nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __getattr__(self, name):
        return lambda *args, **kwargs: 0.0 if name == "elapsed_time" else None


# What the device process said of its GPU (`set_device`): the host has none to ask.
_DEVICE: dict = {}


def set_device(props: dict) -> None:
    """The device's GPU properties (`replay.device_properties`), for the host's torch.cuda."""
    _DEVICE.clear()
    _DEVICE.update(props or {})


def _properties(*_args, **_kwargs):
    import types

    if not _DEVICE:
        raise RuntimeError("no GPU: the launcher runs on a CPU")
    return types.SimpleNamespace(**_DEVICE)


class _HostDriver:
    """Triton's driver as a host sees it (a launcher from Triton's tutorials asks it for the
    SMs and shared memory): the device process's GPU, as it said."""

    def __init__(self):
        import types

        self.utils = types.SimpleNamespace(get_device_properties=self.properties)

    @staticmethod
    def properties(*_args):
        p = _properties()
        return {"multiprocessor_count": p.multi_processor_count,
                "max_shared_mem": getattr(p, "shared_memory_per_block_optin", 0),
                "max_num_regs": getattr(p, "regs_per_multiprocessor", 0),
                "warpSize": getattr(p, "warp_size", 32), "sm_clock_rate": 0, "mem_clock_rate": 0,
                "mem_bus_width": 0}

    def get_current_target(self):
        from triton.backends.compiler import GPUTarget

        p = _properties()
        return GPUTarget("cuda", p.major * 10 + p.minor, getattr(p, "warp_size", 32))

    def get_current_device(self):
        return 0

    def get_active_torch_device(self):
        return torch.device("cuda", 0)

    def get_current_stream(self, *_args):
        return 0

    def is_active(self):
        return True


def install_host(device: str) -> None:
    """This process becomes a host: no launch runs here, none reaches a device. torch.cuda
    answers from what the device process said of its GPU (a launcher may size its grid by the
    number of SMs), and its streams and events order nothing."""
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    install_triton()
    install_cuda()
    import torch.cuda as tc

    gpu = device == "gpu"
    tc.synchronize = lambda *a, **k: None
    tc.is_available = lambda: gpu
    tc.device_count = lambda: int(gpu)
    tc.current_device = lambda: 0
    tc.get_device_properties = _properties
    tc.get_device_name = lambda *a, **k: _properties().name
    tc.get_device_capability = lambda *a, **k: (_properties().major, _properties().minor)
    tc.Stream = tc.Event = _Stream
    tc.current_stream = tc.default_stream = lambda *a, **k: _Stream()
    tc.stream = lambda *a, **k: contextlib.nullcontext()
    if gpu:
        from triton.runtime import driver

        if hasattr(driver, "set_active"):
            driver.set_active(_HostDriver())


def launch(launcher, rec: Recorder, tensors: list, params: list):
    """Call `launcher(*tensors, *params)` as a host: its stream is `rec.stream`."""
    Launching.current = rec
    try:
        with rec.recording():
            return launcher(*tensors, *params)
    finally:
        Launching.current = None
