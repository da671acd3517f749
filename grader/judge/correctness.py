"""Correctness: the half that launches (in the worker, or in the student's notebook kernel)
and the pure half that decides (in the parent, or in the notebook on the same evidence).

    parent:  prepare()  -> cases with host inputs and float64 expected outputs
    worker:  launch()   -> (Message, Result) per case: what the launch wrote and did
    parent:  judge_case() per case as results arrive, then decide() -> one Verdict

`tclab check`, pytest, the nbgrader regrade and the notebook's `check()` all reach their
verdict through `judge_case` and `decide`; only where the launch runs differs.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from grader.judge.verdict import Message, Outcome, Verdict, status_of
from grader.lab import cases
from grader.lab.manifest import Exercise


@dataclass
class Prepared:
    case: cases.Case
    inputs: dict[str, torch.Tensor]  # the values, on the host, contiguous
    expected: dict[str, torch.Tensor]  # float64
    layouts: dict[str, cases.Layout] = field(default_factory=dict)  # where not contiguous


@dataclass
class Result:
    """What one launch left: the output buffers (guards included), the inputs afterwards, and
    the outputs of each re-run under another thread schedule (CPU CUDA)."""

    outputs: dict[str, torch.Tensor]
    inputs: dict[str, torch.Tensor]
    schedules: dict[str, dict[str, torch.Tensor]] = field(default_factory=dict)
    # Per output with NaNs the kernel computed: whether some of them are gone when the same
    # launch starts from a zeroed output (then the NaN fill it added into is their cause).
    nan_from_fill: dict[str, bool] = field(default_factory=dict)


@dataclass
class CaseVerdict:
    suite: str
    shape: dict
    ok: bool
    status: str = "pass"
    message: str | None = None
    seconds: float | None = None


def prepare(ex: Exercise, suites: list[str], dtype: str,
            secret_: str | None = None) -> list[Prepared]:
    prepared = []
    for suite in suites:
        for case in cases.cases(ex, suite, dtype, secret_):
            inputs, layouts = cases.make_values(ex, case.shape, case.seed, dtype)
            prepared.append(Prepared(case, inputs, cases.oracle(ex, inputs, case.shape),
                                     layouts))
    # Indices run over all suites: the worker and the parent count cases the same way.
    return [dataclasses.replace(p, case=cases.Case(p.case.suite, i, p.case.shape,
                                                   p.case.dtype, p.case.seed))
            for i, p in enumerate(prepared)]


# --- the launching half ---------------------------------------------------------------------

def classify(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, NotImplementedError) or "NotImplementedError" in text:
        return "not_implemented"
    if "CompileError" in text or "CompilationError" in text or "KernelSourceError" in text:
        return "compile_error"
    if "out-of-bounds read" in text:  # the CPU backend's checked mode
        return "memory_error"
    return "exception"


# The words a GPU uses for a kernel that touched memory it may not, and what they mean to a
# student: the context is lost, the launch's outputs are garbage, the index arithmetic is wrong.
MEMORY_FAULTS = {
    "illegal memory access": "",
    "operation not supported on global/shared address space":
        " (an illegal memory access: an address outside every allocation)",
    "misaligned address": " (a misaligned memory access: a vector load or store needs an "
                          "address aligned to its size)",
}


def summarize(exc: BaseException) -> str:
    """One line: the exception's type and the first line of its message (CUDA errors append
    several lines of advice after the one that matters), a GPU memory fault named as one."""
    text = str(exc).strip().splitlines()
    line = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
    meaning = next((m for fault, m in MEMORY_FAULTS.items() if fault in line), "")
    return line + meaning


def error_message(exc: BaseException, index: int | None, describe) -> Message:
    return Message(event="error", index=index, kind=classify(exc), message=describe(exc),
                   summary=summarize(exc))


@contextmanager
def _cuda_schedule(schedule: str):
    """The CPU backend orders each block's threads by TCLAB_CUDA_SCHEDULE at every barrier."""
    os.environ["TCLAB_CUDA_SCHEDULE"] = schedule
    try:
        yield
    finally:
        os.environ.pop("TCLAB_CUDA_SCHEDULE", None)


def _region(ex: Exercise, buf: torch.Tensor, dtype: str) -> torch.Tensor:
    """An output buffer without its guards."""
    return buf[cases.GUARD: buf.numel() - cases.GUARD]


def _computed_nan(ex: Exercise, buf: torch.Tensor, dtype: str) -> torch.Tensor | None:
    """NaNs in an output that are not its fill value (None for an integer output)."""
    if not buf.is_floating_point():
        return None
    region = _region(ex, buf, dtype).cpu()
    return torch.isnan(region) & ~cases.unwritten(region)


def launch(ex: Exercise, impl: str, calls, shape: dict, dtype: str, inputs: dict,
           device: str, schedules=(), index: int | None = None,
           layouts: dict | None = None) -> tuple[Message, Result | None]:
    """One case: lay the inputs out on the device (`layouts`: cases.make_values), hand the
    launcher guarded outputs through `calls` (the host records, this process replays:
    `grader.execution.worker.Replayed`), and report what ran. Never raises: an exception becomes an
    error message (`calls.error`)."""
    tdev = "cuda" if device == "gpu" else "cpu"
    # Inputs of one shape in the manifest's address order on even cases, reversed on odd ones.
    on_device = cases.place_inputs(inputs, layouts or {}, tdev,
                                   descending=index is not None and index % 2 == 1)
    params = list(ex.param_values(shape).values())
    buffers, outputs = cases.alloc_outputs(ex, shape, dtype, tdev)
    start = time.perf_counter()
    try:
        run, returned = calls([*on_device.values(), *outputs.values()], params)
        if tdev == "cuda":
            torch.cuda.synchronize()
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises
        return calls.error(exc, index), None
    seconds = time.perf_counter() - start
    ran = {impl: run.launches.get(impl, 0)}
    result = Result({k: b.cpu() for k, b in buffers.items()},
                    {k: v.cpu() for k, v in on_device.items()})
    nan = {k: _computed_nan(ex, b, dtype) for k, b in buffers.items()}
    if any(m is not None and bool(m.any()) for m in nan.values()):
        # Where the kernel computed NaN: the same stream again on zeroed outputs says whether
        # it added into the NaN the outputs arrive with (the hint's cause) or made the NaN.
        again, zeroed = cases.alloc_outputs(ex, shape, dtype, tdev)
        for view in zeroed.values():
            view.zero_()
        try:
            calls([*on_device.values(), *zeroed.values()], params)
            for k, m in nan.items():
                if m is not None and bool(m.any()):
                    region = _region(ex, again[k], dtype).cpu()
                    result.nan_from_fill[k] = bool((m & ~torch.isnan(region)).any())
        except BaseException:  # noqa: BLE001 - the hint stays unnamed, the verdict the same
            pass
    # The same stream again with the threads of each block in reverse order at every barrier
    # (CPU backend): a result that depends on thread order is a race.
    for schedule in schedules:
        again, outputs = cases.alloc_outputs(ex, shape, dtype, tdev)
        try:
            with _cuda_schedule(schedule):
                calls([*on_device.values(), *outputs.values()], params)
        except BaseException as exc:  # noqa: BLE001
            return calls.error(exc, index), None
        result.schedules[schedule] = {k: b.cpu() for k, b in again.items()}
    return Message(event="case", index=index, seconds=seconds, launches=ran,
                   foreign=list(run.refused), returned=returned,
                   c_stub=run.c_stub, others=list(run.others)), result


# --- the deciding half ----------------------------------------------------------------------

def _fill_in(ex: Exercise, impl: str) -> str:
    spec = ex.impls[impl]
    where = " (in the source string)" if impl == "cuda" else ""
    return f"not implemented: fill in the {spec.words}{where} and its launcher {spec.launcher}()"


def judge_case(ex: Exercise, impl: str, p: Prepared, msg: Message,
               result: Result) -> CaseVerdict:
    """One case's verdict from what the launch left; pure."""
    case = p.case
    spec = ex.impls[impl]
    where = f"{ex.key} [{ex.describe(case.shape, case.dtype)}]"
    problem, status = None, "fail"
    kind = spec.words.split(' ')[0]
    if msg.others:  # someone else's kernel, beside the student's own or instead of it
        status = "fallback"
        theirs = f"{', '.join(msg.others)}, which your cells do not define"
        ran = (f"no {kind} kernel was launched (it ran {theirs})"
               if msg.launches.get(impl, 1) == 0 else
               f"besides its own {kind} kernel it ran {theirs}")
        problem = (f"{where}: {ran}: {spec.launcher}() must compute with {spec.kernel}, "
                   "defined in your cells")
    elif msg.foreign:
        status = "fallback"
        problem = (f"{where}: the launcher computed on the host: "
                   f"{', '.join(dict.fromkeys(msg.foreign))}; the result must come from the "
                   f"{spec.words}, which runs where the data is")
    elif msg.launches.get(impl, 1) == 0:
        status = "fallback"
        problem = (f"{where}: no {kind} kernel was launched: "
                   f"{spec.launcher}() must launch {spec.kernel}, defined in your cells")
    for name, want in p.expected.items():
        problem = problem or cases.compare(ex, case, name, result.outputs[name], want, impl,
                                           result.nan_from_fill.get(name))
    mutated = cases.mutated(p.inputs, result.inputs)
    problem = problem or mutated
    # A launch that wrote into its inputs handed the rerun other inputs: what the rerun
    # returns then says nothing about thread order.
    for schedule, outputs in result.schedules.items() if not mutated else ():
        if status != "fail":
            break  # a fallback stays a fallback, whatever the thread order does to it
        other = next(filter(None, (cases.compare(ex, case, name, outputs[name], want, impl)
                                   for name, want in p.expected.items())), None)
        if (problem is None) != (other is None):
            status, problem = "race", cases.race(where, schedule, problem is None)
        elif problem and other and not all(  # wrong both ways, and not the same way
                cases.same_result(ex, case, outputs[name], result.outputs[name])
                for name in p.expected):
            status, problem = "race", cases.race(where, schedule, None)
    if problem and "never written" in problem:
        if msg.c_stub:
            status, problem = "not_implemented", (
                f"{_fill_in(ex, impl)}: its body is still the stub, the output was never "
                "written")
        elif msg.returned:
            problem += (f" The launcher returned {msg.returned}: the checks read the `out` "
                        "it was given, so write into it.")
    return CaseVerdict(case.suite, case.shape, problem is None,
                       "pass" if problem is None else status, problem, msg.seconds)


def _first_error_line(message: str) -> str:
    """The compiler's first diagnostic (`kernel.cu:5:36: error: ...`), else the last line.
    Read from the last exception of a chain: ours, whose diagnostics are already rewritten
    (the compiler's raw report may precede it)."""
    message = message.rsplit("\nwhich caused:\n", 1)[-1]
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    for pattern in (r"\berror\b.*:|:\s*error\b", r"\berror\b"):
        for line in lines:
            if re.search(pattern, line) and not line.startswith(("File ", "raise ", "Traceback")):
                return re.sub(r"^grader\.[\w.]+Error: ", "", line)
    return re.sub(r"^grader\.[\w.]+Error: ", "", lines[-1]) if lines else "compile error"


def decide(ex: Exercise, impl: str, dtype: str, device: str, prepared: list[Prepared],
           judged: list[CaseVerdict], outcome: Outcome) -> Verdict:
    """The correctness verdict from the judged cases and how the run ended."""
    spec = ex.impls[impl]
    suite = "+".join(dict.fromkeys(p.case.suite for p in prepared)) or "none"
    base = {"check": "correctness", "exercise": ex.key, "impl": impl, "dtype": dtype,
            "device": device, "total": len(prepared), "seconds": outcome.seconds,
            "unsandboxed": outcome.unsandboxed}
    passed = sum(c.ok for c in judged)
    base.update(passed=passed, cases=[c.__dict__ for c in judged], output=outcome.output)
    current = len(judged) - (0 if not judged or judged[-1].ok else 1)
    shape = (ex.describe(prepared[current].case.shape, dtype) if current < len(prepared)
             else "?")
    if outcome.timed_out:
        return Verdict(status="timeout", reason=f"killed after {outcome.timeout:g} s: the "
                       f"{spec.words} did not finish on [{shape}] (an infinite loop, or a grid "
                       "far too large?)", **base)
    if outcome.error is not None:
        err = outcome.error
        index = err.index
        where = "" if index is None or index >= len(prepared) else \
            f" on [{ex.describe(prepared[index].case.shape, dtype)}]"
        if err.kind == "compile_error":
            first = f"compile error in {spec.words}: {_first_error_line(err.message)}"
        elif err.kind == "not_implemented":
            first, where = _fill_in(ex, impl), ""  # not about a shape
        else:
            first = err.summary or (err.message.strip().splitlines()[-1]
                                    if err.message.strip() else err.kind)
        status = status_of(err.kind)
        return Verdict(status=status, reason=f"{first}{where}", details=err.message, **base)
    failed = next((c for c in judged if not c.ok), None)
    if failed:
        return Verdict(status=failed.status, reason=failed.message.splitlines()[0],
                       details=failed.message, **base)
    if passed < len(prepared):
        return Verdict(status="crash", reason=f"{spec.words}: the process died (exit code "
                       f"{outcome.returncode}{', its server too' if outcome.server_lost else ''}) "
                       f"on [{shape}]", details=outcome.output, **base)
    return Verdict(status="pass", reason=f"{passed}/{len(prepared)} {suite} shapes correct",
                   **base)


def one_run(per_dtype: list[list[Prepared]]) -> tuple[list[Prepared], list[int]]:
    """The cases of every dtype in one run, in order, numbered on across dtypes; and where
    each dtype's cases start (one more entry: the end)."""
    starts = [sum(len(p) for p in per_dtype[:k]) for k in range(len(per_dtype) + 1)]
    flat = [dataclasses.replace(p, case=cases.Case(p.case.suite, starts[k] + p.case.index,
                                                   p.case.shape, p.case.dtype, p.case.seed))
            for k, group in enumerate(per_dtype) for p in group]
    return flat, starts


def decide_dtypes(ex: Exercise, impl: str, dtypes: list[str] | tuple[str, ...], device: str,
                  per_dtype: list[list[Prepared]], judged: list[CaseVerdict],
                  outcome: Outcome) -> list[Verdict]:
    """One verdict per dtype of a run of `one_run()`'s cases that stopped at the first wrong
    case (or error, or kill): the dtypes in order, up to the first that failed."""
    if not any(per_dtype):
        return [decide(ex, impl, dtypes[0], device, per_dtype[0], [], Outcome())]
    starts = one_run(per_dtype)[1]
    verdicts = []
    for k, dtype in enumerate(dtypes):
        lo, hi = starts[k], starts[k + 1]
        if len(judged) >= hi and all(c.ok for c in judged[lo:hi]):
            part = Outcome(seconds=sum(c.seconds or 0 for c in judged[lo:hi]),
                           unsandboxed=outcome.unsandboxed)  # every case of this dtype ran
        else:  # where the run stopped: a wrong case, an error, a kill
            error = outcome.error
            if error is not None and error.index is not None:
                error = dataclasses.replace(error, index=error.index - lo)
            part = dataclasses.replace(outcome, error=error)
        verdicts.append(decide(ex, impl, dtype, device, per_dtype[k], judged[lo:hi], part))
        if not verdicts[-1].ok:
            break
    return verdicts


def unreadable(ex: Exercise, impl: str, device: str, status: str, reason: str) -> Verdict:
    """The verdict of a submission whose cells could not be read (`status`: "unreadable", or
    "missing" for a solution cell that is not there): nothing ran."""
    return Verdict(check="correctness", status=status, reason=reason, exercise=ex.key,
                   impl=impl, device=device)
