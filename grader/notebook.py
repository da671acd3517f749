"""What a lab notebook calls: `check` (correctness) and `bench` (bandwidth).

They run inside the student's kernel for instant feedback, and decide through the same
judge as the grader (`grader.judge`): the same cases, the same launch (`correctness.launch`),
the same `decide()`, and the same split: the launcher runs against phantoms (`execution.phantom`)
and its recorded stream is replayed on the data by kernels built from the cells' source
(`execution.replay`), as the grader's host and device processes do. Here both halves share the
student's kernel, for speed; the grade itself is decided outside the notebook, in processes
the notebook cannot touch.

The setup cell imports this module first: importing it fixes the device for the kernel, so
that without a GPU Triton runs in its interpreter whatever was imported before.
"""

from __future__ import annotations

import linecache
import os
import signal
import sys
import threading
import traceback
from contextlib import contextmanager, nullcontext
from pathlib import Path

from grader.backends import device as dev
from grader.backends import interpreter

interpreter.ensure(dev.resolve())

from grader.backends.cuda import SourceModule  # noqa: E402,F401 - the setup cell's import
from grader.base import paths  # noqa: E402 - after the device is fixed
from grader.judge import correctness  # noqa: E402
from grader.judge.verdict import Outcome, Verdict  # noqa: E402
from grader.lab import manifest  # noqa: E402

_OURS = (str(Path(__file__).resolve().parent), sys.base_prefix, sys.prefix)


class CheckFailed(AssertionError):
    """A failed check: its message is the whole story, the student's own frames included."""

    def _render_traceback_(self) -> list[str]:
        """What IPython shows for it (its hook for an exception's own display): the message
        alone, without the test cell's frame and ours, which say nothing of the student's
        code; the student's frames are in the message."""
        return f"{type(self).__name__}: {self}".splitlines()


def _cell_name(filename: str) -> str:
    """A cell as IPython names it in tracebacks ("Cell In[3]"); a file by its name."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    try:
        label = shell.compile.format_code_name(filename) if shell is not None else None
    except AttributeError:  # an IPython without cell labels
        label = None
    return " ".join(label) if label else Path(filename).name


def _describe(exc: BaseException) -> str:
    """The exception with the student's own frames only (their cells, not ours or libraries')."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith(_OURS) and "site-packages" not in f.filename]
    lines = [f"  {_cell_name(f.filename)}, line {f.lineno}, in {f.name}\n    "
             f"{(f.line or '').strip()}" for f in frames]
    return "\n".join([*lines, *traceback.format_exception_only(exc)]).rstrip()


def _story(reason: str, details: str) -> str:
    """The reason, then the lines of the details that do not repeat it: a wrong result's
    details open with the reason, an exception's end with the line the reason begins with."""
    said = [line for line in details.rstrip().splitlines()
            if not (line.strip() and not line[0].isspace() and reason.startswith(line.strip()))]
    return "\n".join([reason, *said]).rstrip()


def _cell_sources(launcher) -> dict[str, str]:
    """The text of the cell that defines the launcher, for the library-call scan."""
    code = getattr(launcher, "__code__", None)
    if code is None:
        return {}
    lines = linecache.getlines(code.co_filename)
    return {getattr(launcher, "__name__", "launcher"): "".join(lines)} if lines else {}


def _all_cells(launcher) -> list[str] | None:
    """Every cell this kernel has run, for the launch counters' "the student's kernel" test:
    IPython keeps each cell in a file of its own, all in one folder (as the launcher's)."""
    code = getattr(launcher, "__code__", None)
    if code is None or not os.path.isabs(code.co_filename):
        return None  # no way to tell the student's cells: every kernel counts
    own = linecache.getlines(code.co_filename)  # loads a module file from disk if need be
    folder = os.path.dirname(code.co_filename)
    cells = ["".join(entry[2]) for name, entry in list(linecache.cache.items())
             if isinstance(name, str) and os.path.dirname(name) == folder and len(entry) >= 3]
    return cells + ["".join(own)] if cells or own else None


@contextmanager
def _environ(**values: str):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _exercise(lab_id: str, launcher, exercise: str | None):
    lab = manifest.get(lab_id)
    return lab.exercise(exercise) if exercise else \
        lab.exercise_for_launcher(getattr(launcher, "__name__", ""))


class _Calls:
    """The notebook's launcher calls: recorded here on phantoms, replayed by a device built
    from the source of every cell this kernel has run (a notebook is one namespace)."""

    def __init__(self, ex, impl: str, launcher, device: str):
        import tempfile

        from grader.execution import replay
        self.ex, self.launcher, self.device_name = ex, launcher, device
        cells = {f"cell{i}": src for i, src in enumerate(_all_cells(launcher) or [])
                 if _parses(src)}
        self._folder = tempfile.TemporaryDirectory(prefix="tclab-check-")
        self._calls = replay.Calls(replay.Device(ex, impl, device, "", cells,
                                                 Path(self._folder.name)), self._record)
        self._rec = None

    def __call__(self, tensors, params):
        return self._calls(tensors, params)

    def _record(self, shapes, params):
        from grader.execution import host, phantom
        rec = self._rec = phantom.Recorder(self.device_name, self.ex.allowed_ops)
        # A refusal in a helper thread interrupts the launcher, which may be waiting on that
        # thread for ever (the grader's host process says so at once, too). A refusal in a
        # forked child reaches this process through a pipe.
        told_r, told_w = os.pipe()
        pid = os.getpid()

        def notify(name, text):
            os.write(told_w, (name + "\n").encode())
            if os.getpid() == pid and threading.current_thread() is not \
                    threading.main_thread():  # a real signal: it wakes a blocked wait
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

        rec.notify = notify
        phantoms = [rec.given(g) for g in shapes]
        main = threading.current_thread() is threading.main_thread()
        handler = signal.getsignal(signal.SIGINT) if main else None
        if main:  # a Python handler for that signal (a forked child may ignore it)
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            with phantom.intercepting():
                returned = phantom.launch(self.launcher, rec, phantoms, params)
        except KeyboardInterrupt:
            if not rec.stream.refused:
                raise
            raise phantom.HostCompute(phantom.refusal(KeyboardInterrupt(), rec)) from None
        finally:
            if main:
                signal.signal(signal.SIGINT, handler)
            os.close(told_w)
            told = os.read(told_r, 1 << 16).decode(errors="replace").splitlines()
            os.close(told_r)
            rec.stream.refused += [t for t in told if t not in rec.stream.refused]
        return rec.stream.to_dict(), host.describe_returned(returned)

    def error(self, exc, index):
        from grader.execution import phantom
        msg = correctness.error_message(exc, index, _describe)
        refused = phantom.refusal(exc, self._rec)
        if refused:
            msg.kind, msg.summary = "host_compute", refused
        return msg


def _parses(src: str) -> bool:
    import ast

    try:
        ast.parse(src)
        return True
    except (SyntaxError, ValueError):
        return False


def verdicts(lab_id: str, impl: str, launcher, suite: str = "public",
             exercise: str | None = None) -> list[Verdict]:
    """One correctness verdict per dtype, decided as the grader decides; stops at the first
    failing dtype."""
    ex = _exercise(lab_id, launcher, exercise)
    device = dev.resolve()
    cpu_cuda = impl == "cuda" and device == "cpu"
    calls = _Calls(ex, impl, launcher, device)
    per = [correctness.prepare(ex, [suite], dtype) for dtype in ex.dtypes]
    judged, error = [], None
    # Without a GPU, CUDA C runs as the grader runs it: reads are bounds-checked, and every
    # launch runs again with each block's threads in reverse order.
    with _environ(TCLAB_CUDA_CHECKED="1") if cpu_cuda else nullcontext():
        for p in correctness.one_run(per)[0]:
            msg, result = correctness.launch(
                ex, impl, calls, p.case.shape, p.case.dtype, p.inputs, device,
                ["reverse"] if cpu_cuda else [], p.case.index, p.layouts)
            if result is None:
                error = msg
                break
            judged.append(correctness.judge_case(ex, impl, p, msg, result))
            if not judged[-1].ok:
                break
    return correctness.decide_dtypes(ex, impl, ex.dtypes, device, per, judged,
                                     Outcome(error=error))


def check(lab_id: str, impl: str, launcher, suite: str = "public",
          exercise: str | None = None) -> None:
    """Run `launcher` on every shape of `suite` in every dtype of its exercise; raise
    CheckFailed with the grader's own reason on the first failure. Returns nothing, so a test
    cell shows only the printed line (`verdicts()` returns the verdicts themselves)."""
    __tracebackhide__ = True  # noqa: F841 - IPython and pytest hide this frame
    device = dev.resolve()
    ex = _exercise(lab_id, launcher, exercise)
    if suite == "gpu" and device != "gpu":
        print(f"{ex.key} {impl} [{suite}]: skipped: needs a GPU")
        return
    found = verdicts(lab_id, impl, launcher, suite, exercise)
    bad = next((v for v in found if not v.ok), None)
    if bad is not None:
        raise CheckFailed(_story(bad.reason, bad.details))
    passed = sum(v.passed for v in found)
    how = f"{device}, Triton interpreter" if impl == "triton" and device == "cpu" else device
    dtypes = f" in {', '.join(ex.dtypes)}" if len(ex.dtypes) > 1 else ""
    print(f"{ex.key} {impl} [{suite}]: {passed}/{passed} shapes correct{dtypes} ({how})")


def bench(lab_id: str, impl: str, launcher, graded: bool = False,
          exercise: str | None = None):
    """Bandwidth (or, for a compute-bound exercise, TFLOP/s) of `launcher` on the GPU against
    torch, with a plot and the profiler's advice; on the CPU, one line saying it needs a GPU."""
    __tracebackhide__ = True  # noqa: F841
    ex = _exercise(lab_id, launcher, exercise)
    if dev.resolve() != "gpu":
        if graded:
            raise CheckFailed(f"{ex.key} {impl} performance: not graded: needs a GPU")
        print(f"{ex.key} {impl} bench: skipped: needs a GPU")
        return None
    from grader.backends import bench as timing
    from grader.judge import perf, report
    from grader.judge.verdict import Message
    from grader.pipeline import plot

    roof = timing.copy_roof()["gbps"]
    timer = timing.Timer()
    dtype = ex.perf_dtypes[0]
    fns = {"student": launcher, "torch": timing.baseline_op(ex)}
    if graded:
        from grader.lab import reference
        fns["reference"] = reference.load(ex, impl)
    suite = "perf" if graded else "sweep"
    shared = timing.shared_note()  # asked before the timed rounds, not beside them
    rows, messages = [], []
    for index, shape in enumerate(ex.shapes[suite]):
        times = timing.time_rounds(ex, shape, dtype, fns, timer, timing.ROUNDS["sweep"],
                                   lambda r, index=index: index * 1000 + r)
        messages.append(Message(event="perf", suite="perf", index=index, dtype=dtype,
                                times=times))
        rows.append(timing.summary(ex, shape, dtype, times, roof))
    if ex.unit == "bytes":
        print(f"{ex.key} {impl} ({dtype}): copy roof {roof:.0f} GB/s")
    else:
        print(f"{ex.key} {impl} ({dtype}): compute-bound, TFLOP/s = {ex.work} / time")
    if shared:
        print(shared)
    for row in rows:
        print(f"  {report.row_line(ex, row, dtype, roof, reference=graded)}")
    if not graded:
        try:
            from IPython.display import Image, display

            display(Image(filename=str(plot.sweep(ex, impl, rows, roof,
                                                  paths.CACHE / "plots"))))
        except ImportError:
            pass
        print(report.profile_note(_profile(ex, impl, launcher)))
        return rows
    verdict = perf.decide(ex, impl, dtype, messages, roof)
    if not verdict.ok:
        raise CheckFailed(f"{ex.key} {impl}: {verdict.reason}")
    return rows


def _saved_notebook() -> Path | None:
    """The notebook this kernel runs, as Jupyter names it to the kernel (None elsewhere)."""
    name = os.environ.get("JPY_SESSION_NAME", "")
    path = Path(name)
    return path if name.endswith(".ipynb") and path.is_file() else None


def _profile(ex, impl: str, launcher) -> str:
    """One line of advice from Nsight Compute on one call of the student's kernel, as the
    grader profiles it: in a sandboxed process of its own, from the cells as last saved."""
    from grader.lab import submission
    from grader.pipeline import grading, profiling

    path = _saved_notebook()
    if path is None:
        return ("not run here: it profiles the saved notebook, and this kernel does not know "
                "its notebook (run `tclab check` on the notebook for it)")
    try:
        nb = submission.read_notebook(path)
        sources = submission.cell_sources(nb, ex.impls[impl].cells, str(path),
                                          grading.cell_names(ex))
    except submission.SubmissionError as exc:
        return f"not run: {exc}"
    live = "".join(_cell_sources(launcher).values()).strip()
    if live and not any(live in text for text in sources.values()):
        return "not run: the saved notebook differs from the cell you ran: save it (Ctrl+S) first"
    got = profiling.feedback(ex, impl, sources)
    return got.get("advice") or got.get("reason") or "no advice"

