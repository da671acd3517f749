"""Correctness: inputs, guarded outputs, the oracle, and comparisons that teach.

Every case draws fresh inputs from a seed mixed with the grading secret, pre-fills outputs
with NaN inside guard regions, and compares in float64 on the host. The functions here are
pure: the runner uses them outside the student's process, the notebook inside it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

import torch

from grader.manifest import Lab

SECRET_ENV = "TCLAB_SECRET_SEED"
# Elements of guard before and after every output: larger than any sane BLOCK_SIZE, so an
# unmasked block that runs past the end lands in the guard, not in someone else's memory.
GUARD = 16384
# A float32 bit pattern a kernel does not produce by accident; compared bit for bit.
GUARD_BITS = 0x7F7A5A5A  # 3.33e38, just below FLT_MAX
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
MAX_REPORTED = 5


@dataclass(frozen=True)
class Case:
    suite: str
    index: int
    shape: dict
    seed: int


def secret() -> str:
    return os.environ.get(SECRET_ENV, "")


def seed_for(lab_id: str, suite: str, index: int, round_: int = 0,
             secret_: str | None = None) -> int:
    """A 63-bit seed; without the secret anyone can reproduce it, with it nobody can."""
    text = f"{lab_id}/{suite}/{index}/{round_}/{secret() if secret_ is None else secret_}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def cases(lab: Lab, suite: str, secret_: str | None = None) -> list[Case]:
    """The suite's shapes, then its last shape again with other data: a launcher that caches
    or replays outputs by shape fails the repeat."""
    shapes = list(lab.shapes[suite])
    if shapes and suite in ("public", "hidden", "gpu"):
        shapes.append(shapes[-1])
    return [Case(suite, i, dict(shape), seed_for(lab.id, suite, i, secret_=secret_))
            for i, shape in enumerate(shapes)]


def make_inputs(lab: Lab, shape: dict, seed: int, dtype: torch.dtype, device: str = "cpu"):
    """Fresh inputs for one case: standard normal times `scale`, never zeros or ramps.

    A `row_stride` in the shape makes 2-D inputs padded views (stride(0) > n_cols), so a kernel
    that assumes contiguous rows reads the padding and fails.
    """
    gen = torch.Generator(device=device).manual_seed(seed)
    scale = float(shape.get("scale", 1.0))
    out = {}
    for t in lab.inputs:
        dims = [shape[d] for d in t.shape]
        stride = shape.get("row_stride")
        if stride and len(dims) == 2:
            base = torch.randn(dims[0], stride, generator=gen, device=device, dtype=torch.float32)
            base = (base * scale).to(dtype)
            out[t.name] = base[:, : dims[1]]
        else:
            base = torch.randn(*dims, generator=gen, device=device, dtype=torch.float32)
            out[t.name] = (base * scale).to(dtype)
    return out


def oracle(lab: Lab, inputs: dict) -> dict:
    """The expected outputs in float64 (on the host), from the manifest's expression."""
    env = {name: t.detach().to("cpu", torch.float64) for name, t in inputs.items()}
    result = eval(lab.oracle, {"torch": torch, "__builtins__": {}}, env)  # trusted manifest
    if len(lab.outputs) == 1:
        result = (result,)
    return {t.name: r for t, r in zip(lab.outputs, result)}


def guard_fill(buf: torch.Tensor) -> None:
    if buf.dtype == torch.float32:
        buf.view(torch.int32).fill_(GUARD_BITS)
    else:
        buf.fill_(-12345.0)  # exactly representable in fp16 and bf16


def alloc_outputs(lab: Lab, shape: dict, dtype: torch.dtype, device: str = "cpu"):
    """Guarded, NaN-poisoned outputs: returns ({name: flat buffer}, {name: view handed out})."""
    buffers, views = {}, {}
    for t in lab.outputs:
        dims = [shape[d] for d in t.shape]
        numel = lab.numel(t, shape)
        buf = torch.empty(GUARD + numel + GUARD, dtype=dtype, device=device)
        guard_fill(buf)
        buf[GUARD : GUARD + numel] = float("nan")
        buffers[t.name] = buf
        views[t.name] = buf[GUARD : GUARD + numel].view(*dims)
    return buffers, views


def _index(flat: int, dims: list[int]) -> tuple[int, ...]:
    idx = []
    for d in reversed(dims):
        idx.append(flat % d)
        flat //= d
    return tuple(reversed(idx))


def _guard_damage(buf: torch.Tensor, numel: int) -> list[int]:
    """Offsets (relative to the output's first element) of guard elements that changed."""
    expect = torch.empty_like(buf)
    guard_fill(expect)
    bits = torch.int16 if buf.element_size() == 2 else torch.int32
    same = buf.view(bits) == expect.view(bits)
    same[GUARD : GUARD + numel] = True
    bad = (~same).nonzero().flatten().tolist()
    return [b - GUARD for b in bad]


def compare(lab: Lab, shape: dict, name: str, buf: torch.Tensor, expected: torch.Tensor,
            dtype_name: str) -> str | None:
    """None when the output is right, else a message that names the shape and the first errors."""
    where = f"{lab.id} [{lab.describe(shape)}] {name}"
    numel = expected.numel()
    dims = list(expected.shape)
    buf = buf.detach().to("cpu")
    damage = _guard_damage(buf, numel)
    if damage:
        first, before = damage[0], sum(1 for d in damage if d < 0)
        if first < 0:
            pos = f"{-first} elements before its start"
        elif first == numel:
            pos = f"right after its last element (flat index {first})"
        else:
            pos = f"{first - numel} elements after its end (flat index {first})"
        return (f"{where}: out-of-bounds write: {len(damage)} elements outside the output "
                f"({numel} elements) were changed, {before} before its start and "
                f"{len(damage) - before} after its end; the first at {pos}. "
                "Mask the loads and stores of the last block.")
    got = buf[GUARD : GUARD + numel].to(torch.float64).view(*dims)
    atol, rtol = lab.tolerances[dtype_name]
    if torch.isnan(got).all() and numel > 0:
        return (f"{where}: never written: every element is still the NaN it was filled with. "
                "Does the launcher launch the kernel, and does the kernel store to the output?")
    close = (got - expected).abs() <= atol + rtol * expected.abs()
    close |= torch.isinf(expected) & (got == expected)
    if bool(close.all()):
        return None
    bad = (~close).flatten().nonzero().flatten()
    rows = []
    for flat in bad[:MAX_REPORTED].tolist():
        idx = _index(flat, dims)
        rows.append(f"{name}{list(idx)}: got {got.flatten()[flat].item():.7g}, "
                    f"expected {expected.flatten()[flat].item():.7g}")
    unwritten = int(torch.isnan(got).sum())
    hint = f" ({unwritten} are NaN: never written, or inf/inf?)" if unwritten else ""
    return (f"{where}: {bad.numel()} of {numel} elements differ{hint} "
            f"(atol={atol:g}, rtol={rtol:g}); first {len(rows)}:\n    " + "\n    ".join(rows))


def race(where: str, schedule: str, right_in_order: bool) -> str:
    """The message for a result that changes with the order of a block's threads."""
    right, wrong = ("in order", f"in {schedule}") if right_in_order else \
        (f"in {schedule} order", "in")
    return (f"{where}: the result depends on thread order: right with each block's threads "
            f"{right}, wrong with them {wrong} order at every barrier. "
            "A missing __syncthreads()?")


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.detach().to("cpu").contiguous().view(-1).view(torch.uint8)


def mutated(before: dict, after: dict) -> str | None:
    """The name of the first input whose bits changed during the launch, in a message."""
    for name, t in before.items():
        if not torch.equal(_bits(t), _bits(after[name])):
            return f"input {name} was modified by the launch: inputs are read-only"
    return None


def to_device(t: torch.Tensor, device: str) -> torch.Tensor:
    """A copy on `device` with the same strides; padding between rows is NaN, not zeros."""
    if t.device.type == torch.device(device).type and t.is_contiguous():
        return t.clone()
    extent = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride())) if t.numel() else 0
    flat = torch.full((max(extent, 1),), float("nan"), dtype=t.dtype, device=device)
    out = flat.as_strided(t.shape, t.stride())
    out.copy_(t)
    return out
