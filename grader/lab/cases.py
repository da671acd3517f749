"""Correctness material: inputs, guarded outputs, the oracle, and comparisons that teach.

Every case draws fresh inputs from a seed mixed with the grading secret, pre-fills outputs
with NaN (a sentinel for integers) inside guard regions, and compares in float64 on the host.
The functions here are pure: the parent uses them to prepare and judge, the notebook to give
instant feedback. What a lab's inputs look like comes from its manifest (docs/lab-toml.md).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass

import torch

from grader.lab.manifest import INTEGER_DTYPES, SPECIALS, Exercise
from grader.lab.release import count

SECRET_ENV = "TCLAB_SECRET_SEED"
# Elements of guard before and after every output: larger than any sane BLOCK_SIZE, so an
# unmasked block that runs past the end lands in the guard, not in someone else's memory.
GUARD = 16384
# Guard bytes: as float32 3.3e15, as fp16 203.25, as bf16 1.5e16, as uint8 90; a kernel that
# writes past its output changes them. Compared bit for bit.
GUARD_BYTE = 0x5A
# Unwritten integer outputs hold this; a float output holds NaN.
INT_SENTINEL = {"uint8": 0xA5, "int8": -91, "int32": -1515870811}
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "uint8": torch.uint8, "int8": torch.int8, "int32": torch.int32}
MAX_REPORTED = 5
# Float outputs arrive holding this NaN, bit for bit (a payload no arithmetic produces: a GPU's
# 0/0 is 0x7FFFFFFF, a CPU's 0xFFC00000), so an element still "never written" is told apart
# from a NaN the kernel computed.
UNWRITTEN_BITS = {torch.float32: (torch.int32, 0x7FA5A5A5), torch.float16: (torch.int16, 0x7EA5),
                  torch.bfloat16: (torch.int16, 0x7FA5)}


@dataclass(frozen=True)
class Case:
    suite: str
    index: int
    shape: dict
    dtype: str
    seed: int


_SECRET: list[str] = []  # set by `using_secret()`: the grader's, never the environment's


def secret() -> str:
    """The grading secret: the one `using_secret()` holds, else the environment's."""
    return _SECRET[-1] if _SECRET else os.environ.get(SECRET_ENV, "")


@contextlib.contextmanager
def using_secret(value: str):
    """Every seed drawn in this process mixes in `value` while the block runs. The secret
    stays out of os.environ, so nothing this process starts meanwhile (a notebook kernel, a
    worker) can inherit it; threads of the grader share it."""
    _SECRET.append(value)
    try:
        yield
    finally:
        _SECRET.remove(value)


def seed_for(key: str, suite: str, index: int, round_: int = 0,
             secret_: str | None = None) -> int:
    """A 63-bit seed; without the secret anyone can reproduce it, with it nobody can."""
    text = f"{key}/{suite}/{index}/{round_}/{secret() if secret_ is None else secret_}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def cases(ex: Exercise, suite: str, dtype: str, secret_: str | None = None) -> list[Case]:
    """The suite's shapes, then its last shape again with other data: a launcher that caches
    or replays outputs by shape fails the repeat."""
    shapes = list(ex.shapes[suite])
    if shapes and suite in ("public", "hidden", "gpu"):
        shapes.append(shapes[-1])
    return [Case(suite, i, dict(shape), dtype,
                 seed_for(f"{ex.key}/{dtype}", suite, i, secret_=secret_))
            for i, shape in enumerate(shapes)]


def _draw(opts: dict, dims: list[int], dtype: str, gen: torch.Generator,
          device: str) -> torch.Tensor:
    """Values of one input: never zeros, never a ramp. Drawn in float32 (every graded dtype
    fits in it) on the device that will use them: perf inputs are gigabytes."""
    dist = opts.get("dist", "randint" if dtype in INTEGER_DTYPES else "normal")
    if dist == "randint":
        info = torch.iinfo(DTYPES[dtype])
        low, high = int(opts.get("low", info.min)), int(opts.get("high", info.max + 1))
        return torch.randint(low, high, dims, generator=gen, dtype=torch.int64,
                             device=device).to(DTYPES[dtype])
    if dist == "uniform":
        low, high = float(opts.get("low", 0.0)), float(opts.get("high", 1.0))
        base = torch.rand(*dims, generator=gen, device=device) * (high - low) + low
    else:
        base = torch.randn(*dims, generator=gen, device=device) * float(opts.get("scale", 1.0))
    _plant(base, opts.get("specials", ()), gen)
    return base.to(DTYPES[dtype])


def _plant(values: torch.Tensor, specials, gen: torch.Generator) -> None:
    """Put each special value (NaN, ±inf, a huge number) at its own random place: a kernel
    must propagate it the way torch does, wherever it lands."""
    if not specials or values.numel() == 0:
        return
    n = values.numel()
    places = (torch.randperm(n, generator=gen, device=values.device) if n <= 1 << 20 else
              torch.randint(n, (len(specials),), generator=gen, device=values.device))
    flat = values.view(-1)
    for i, value in enumerate(specials):
        flat[places[i % len(places)]] = SPECIALS.get(value, value)


def _fill_value(dtype: str):
    return INT_SENTINEL[dtype] if dtype in INTEGER_DTYPES else float("nan")


def _poison(region: torch.Tensor, dtype: str) -> None:
    """Fill an output region with the value that says "never written"."""
    if dtype in INTEGER_DTYPES:
        region.fill_(_fill_value(dtype))
    else:
        as_int, bits = UNWRITTEN_BITS[region.dtype]
        region.view(as_int).fill_(bits)


def _unwritten(region: torch.Tensor, dtype: str) -> torch.Tensor:
    if dtype in INTEGER_DTYPES:
        return region == _fill_value(dtype)
    return unwritten(region)


def unwritten(region: torch.Tensor) -> torch.Tensor:
    """Where a float output still holds the fill value, bit for bit."""
    as_int, bits = UNWRITTEN_BITS[region.dtype]
    return region.view(as_int) == bits


def _lay_out(values: torch.Tensor, opts: dict, dtype: str) -> torch.Tensor:
    """The same values in the layout the case asks for; unused storage holds NaN/sentinel."""
    layout = opts.get("layout", "contiguous")
    dims = list(values.shape)
    if layout == "padded" and len(dims) >= 2:
        storage = torch.full(dims[:-1] + [dims[-1] + int(opts.get("pad", 1))],
                             _fill_value(dtype), dtype=values.dtype, device=values.device)
        view = storage[..., : dims[-1]]
    elif layout == "transposed" and len(dims) >= 2:
        storage = torch.full(dims[:-2] + [dims[-1], dims[-2]], _fill_value(dtype),
                             dtype=values.dtype, device=values.device)
        view = storage.transpose(-1, -2)
    elif layout == "offset":
        storage = torch.full([values.numel() + 1], _fill_value(dtype), dtype=values.dtype,
                             device=values.device)
        view = storage[1:].view(dims)
    else:
        return values.contiguous()
    view.copy_(values)
    return view


Layout = tuple  # (strides, storage offset) of a view into a larger storage


def make_values(ex: Exercise, shape: dict, seed: int, dtype: str, device: str = "cpu"
                ) -> tuple[dict[str, torch.Tensor], dict[str, Layout]]:
    """A case's input values, contiguous, and the layout each is to be laid out in (`place`):
    a padded row of 2^31 elements is a few KiB of values here, its storage made only where the
    kernel runs."""
    gen = torch.Generator(device=device).manual_seed(seed)
    values, layouts = {}, {}
    for t in ex.inputs:
        opts = ex.input_options(t, shape)
        dt = opts.get("dtype", dtype)
        values[t.name] = _draw(opts, [int(shape[d]) for d in t.shape], dt, gen, device)
        if opts.get("layout", "contiguous") != "contiguous":
            view = _lay_out(torch.empty_like(values[t.name], device="meta"), opts, dt)
            layouts[t.name] = (tuple(view.stride()), view.storage_offset())
    return values, layouts


def make_inputs(ex: Exercise, shape: dict, seed: int, dtype: str,
                device: str = "cpu") -> dict[str, torch.Tensor]:
    """Fresh inputs for one case in the layouts the shape entry asks for."""
    values, layouts = make_values(ex, shape, seed, dtype, device)
    return {k: place(v, layouts[k], device) if k in layouts else v for k, v in values.items()}


def oracle(ex: Exercise, inputs: dict, shape: dict,
           device: str = "cpu") -> dict[str, torch.Tensor]:
    """The expected outputs in float64 (on the host, or where perf's large inputs already
    are), from the manifest's expression."""
    env = {name: t.detach().to(device, torch.float64) for name, t in inputs.items()}
    env.update(ex.param_values(shape))
    result = eval(ex.oracle, {"torch": torch}, env)  # trusted manifest
    if len(ex.outputs) == 1:
        result = (result,)
    return {t.name: torch.as_tensor(r, dtype=torch.float64, device=device).reshape(
        [int(shape[d]) for d in t.shape]) for t, r in zip(ex.outputs, result)}


def output_dtype(tensor, dtype: str) -> str:
    return tensor.options.get("dtype", dtype)


def _guard_fill(buf: torch.Tensor) -> None:
    buf.view(torch.uint8).fill_(GUARD_BYTE)


def alloc_outputs(ex: Exercise, shape: dict, dtype: str, device: str = "cpu"):
    """Guarded, poisoned outputs: returns ({name: flat buffer}, {name: view handed out})."""
    buffers, views = {}, {}
    for t in ex.outputs:
        dt = output_dtype(t, dtype)
        numel = ex.numel(t, shape)
        buf = torch.empty(GUARD + numel + GUARD, dtype=DTYPES[dt], device=device)
        _guard_fill(buf)
        _poison(buf[GUARD : GUARD + numel], dt)
        buffers[t.name] = buf
        views[t.name] = buf[GUARD : GUARD + numel].view([int(shape[d]) for d in t.shape])
    return buffers, views


def _index(flat: int, dims: list[int]) -> tuple[int, ...]:
    idx = []
    for d in reversed(dims):
        idx.append(flat % d)
        flat //= d
    return tuple(reversed(idx))


_BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def _guard_damage(buf: torch.Tensor, numel: int) -> list[int]:
    """Offsets (relative to the output's first element) of guard elements that changed."""
    bits = _BITS[buf.element_size()]
    damage = []
    for start in (0, GUARD + numel):  # the guard before the output, then the one after it
        guard = buf[start : start + GUARD]
        expect = torch.empty_like(guard)
        _guard_fill(expect)
        changed = (guard.view(bits) != expect.view(bits)).nonzero().flatten()
        damage += [start + int(b) - GUARD for b in changed.tolist()]
    return damage


def compare(ex: Exercise, case: Case, name: str, buf: torch.Tensor, expected: torch.Tensor,
            impl: str, nan_from_fill: bool | None = None) -> str | None:
    """None when the output is right, else a message that names the case and the first errors,
    with advice in the language of `impl`. `nan_from_fill`: whether NaNs the kernel computed
    go away when the output starts at zero (`correctness.launch` tries it): only then is
    adding into the NaN-filled output named as their cause."""
    where = f"{ex.key} [{ex.describe(case.shape, case.dtype)}] {name}"
    numel = expected.numel()
    dims = list(expected.shape)
    buf = buf.detach().to("cpu")
    damage = _guard_damage(buf, numel)
    if damage:
        first, before = damage[0], sum(1 for d in damage if d < 0)
        if first < 0:
            pos = f"{count(-first, 'element')} before its start"
        elif first == numel:
            pos = f"right after its last element (flat index {first})"
        else:
            pos = f"{count(first - numel + 1, 'element')} past its end (flat index {first})"
        advice = ("Mask the loads and stores of the last block (mask=offs < n)."
                  if impl == "triton" else
                  "Guard every store with the bounds check (if (i < n)) — the last block has "
                  "threads past the end.")
        return (f"{where}: out-of-bounds write: {count(len(damage), 'element')} outside the "
                f"output ({count(numel, 'element')}) were changed, {before} before its start "
                f"and {len(damage) - before} after its end; the first {pos}. {advice}")
    dt = {v: k for k, v in DTYPES.items()}.get(buf.dtype, "float32")
    region = buf[GUARD : GUARD + numel]
    never = _unwritten(region, dt)
    got = region.to(torch.float64).view(dims)
    if numel > 0 and bool(never.all()) and not bool(torch.isnan(expected).all()):
        call = ("Does the launcher launch the kernel, and does the kernel tl.store to the output?"
                if impl == "triton" else
                "Does the launcher call the kernel, and does the kernel write to the output?")
        if dt not in INTEGER_DTYPES:
            call += (" If the kernel adds into the output (atomics, +=), zero it first: outputs "
                     "arrive filled with NaN.")
        return f"{where}: never written: every element still holds the fill value. {call}"
    atol, rtol = ex.tolerances.get(case.dtype, (0.0, 0.0))
    close = _close(got, expected, atol, rtol)
    if bool(close.all()):
        return None
    bad = (~close).flatten().nonzero().flatten()
    rows = []
    for flat in bad[:MAX_REPORTED].tolist():
        idx = list(_index(flat, dims))
        rows.append(f"{name}{idx}: got {got.flatten()[flat].item():.7g}, "
                    f"expected {expected.flatten()[flat].item():.7g}")
    # Counted among the wrong elements only: 0xA5 is a value a kernel can compute too.
    never = never.view(dims)
    unwritten = int((never & ~close).sum())
    hint = f" ({unwritten} still hold the fill value)" if unwritten else ""
    computed_nan = int((torch.isnan(got) & ~never & ~close).sum())
    if computed_nan and nan_from_fill is False:
        hint += (f" ({computed_nan} computed as NaN, and NaN too when the output starts at "
                 "zero: a NaN the kernel read or made (a masked load without other=, padding "
                 "between rows, uninitialised shared memory, 0/0))")
    elif computed_nan:
        hint += (f" ({computed_nan} computed as NaN: outputs arrive filled with NaN, so a kernel "
                 "that adds into its output (atomics, +=) without zeroing it first gets NaN)")
    return (f"{where}: {bad.numel()} of {numel} elements differ{hint} "
            f"(atol={atol:g}, rtol={rtol:g}); first {len(rows)}:\n    " + "\n    ".join(rows))


def _close(got: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float) -> torch.Tensor:
    """Element-wise: within tolerance, equal (infinities, exact integers), or NaN where the
    expected value is NaN. (In place where it can: a GPU case's 2^24 float64 elements took 0.4
    s of the grading process's CPU as written plainly, half of it this way.)"""
    close = torch.sub(got, expected).abs_() <= expected.abs().mul_(rtol).add_(atol)
    if bool(close.all()):
        return close  # the usual case: what follows could only add elements
    close |= (got == expected)
    close |= torch.isnan(expected) & torch.isnan(got)
    return close


def same_result(ex: Exercise, case: Case, a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two runs' outputs (guarded buffers) agree within the dtype's tolerance, unwritten
    elements included; the guards are compare()'s business."""
    x, y = (t.detach().to("cpu")[GUARD : t.numel() - GUARD].to(torch.float64) for t in (a, b))
    return bool(_close(x, y, *ex.tolerances.get(case.dtype, (0.0, 0.0))).all())


def race(where: str, schedule: str, right_in_order: bool | None) -> str:
    """The message for a result that changes with the order of a block's threads; `None`:
    wrong in both orders, and differently (threads that all read each other's writes)."""
    if right_in_order is None:
        return (f"{where}: the result depends on thread order: wrong with each block's "
                f"threads in order and wrong differently with them in {schedule} order at "
                "every barrier. A missing __syncthreads()?")
    right, wrong = ("in order", f"in {schedule}") if right_in_order else \
        (f"in {schedule} order", "in")
    return (f"{where}: the result depends on thread order: right with each block's threads "
            f"{right}, wrong with them {wrong} order at every barrier. "
            "A missing __syncthreads()?")


def _bytes(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to("cpu").contiguous().view(-1).view(torch.uint8)


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors hold the same bytes, compared as the widest integers that tile both
    (fewer elements to compare: a GPU case's inputs are hundreds of MiB)."""
    x, y = _bytes(a), _bytes(b)
    if x.numel() != y.numel():
        return False
    width = next(w for w in (8, 4, 2, 1) if x.numel() % w == 0
                 and x.storage_offset() % w == 0 and y.storage_offset() % w == 0)
    return torch.equal(x.view(_BITS[width]), y.view(_BITS[width]))


def mutated(before: dict, after: dict) -> str | None:
    """The name of the first input whose bits changed during the launch, in a message."""
    for name, t in before.items():
        if not _same_bits(t, after[name]):
            return f"input {name} was modified by the launch: inputs are read-only"
    return None


def to_device(t: torch.Tensor, device: str) -> torch.Tensor:
    """A copy on `device` with the same strides and storage offset; unused storage is NaN (or
    the integer sentinel), not zeros."""
    if t.device.type == torch.device(device).type and t.is_contiguous() and \
            t.storage_offset() == 0:
        return t.clone()
    return place(t, (tuple(t.stride()), t.storage_offset()), device)


def place_inputs(values: dict[str, torch.Tensor], layouts: dict, device: str,
                 descending: bool = False) -> dict[str, torch.Tensor]:
    """A case's inputs on `device`, each in storage of its own (`place`), where inputs of one
    shape, dtype and layout lie in the manifest's order of inputs by address: ascending, or
    `descending`. The allocator's order is an accident of its free lists; a kernel that assumes
    one input lies above another (lab15's two weights read as one tensor from the lower) must
    meet both orders, and the correctness judge alternates them from case to case."""
    placed = {k: place(v, layouts.get(k), device) for k, v in values.items()}
    alike: dict[tuple, list[str]] = {}
    for name, t in placed.items():
        key = (tuple(t.shape), t.dtype, tuple(t.stride()), t.storage_offset(),
               t.untyped_storage().nbytes())
        alike.setdefault(key, []).append(name)
    for names in (g for g in alike.values() if len(g) > 1):
        tensors = sorted((placed[n] for n in names), key=lambda t: t.data_ptr(),
                         reverse=descending)
        for name, t in zip(names, tensors):  # the i-th name's values into the i-th address
            if t is not placed[name]:
                t.copy_(values[name])
        placed.update(zip(names, tensors))
    return placed


def place(values: torch.Tensor, layout: Layout | None, device: str) -> torch.Tensor:
    """`values` on `device` as a view with `layout`'s strides and offset into storage of its
    own; unused storage is NaN (or -1 for integers), not zeros. No layout: `to_device`."""
    if layout is None:
        return to_device(values, device)
    stride, offset = tuple(int(s) for s in layout[0]), int(layout[1])
    extent = offset + (1 + sum((n - 1) * st for n, st in zip(values.shape, stride))
                       if values.numel() else 0)
    fill = float("nan") if values.is_floating_point() else -1
    flat = torch.full((max(extent, 1),), fill, dtype=values.dtype, device=device)
    out = flat.as_strided(values.shape, stride, offset)
    out.copy_(values)
    return out
