"""Runs ONE check of ONE submission in a fresh subprocess and returns a JSON-able verdict.

The parent (this module) draws the inputs, computes the expected outputs and decides; the
child (`grader.worker`) only loads the student's code and launches it. A hang is killed with
its whole process group at the timeout; a crash fails this check only.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from grader import audit, check, paths, submission
from grader.manifest import Lab

DEFAULT_TIMEOUT = {"cpu": 180.0, "gpu": 120.0}
IMPL_WORDS = {"triton": "Triton", "cuda": "CUDA C"}


def verdict(lab: Lab, impl: str, suite: str, device: str, status: str, reason: str,
            **extra) -> dict:
    return {"lab": lab.id, "impl": impl, "suite": suite, "device": device, "status": status,
            "reason": reason, **extra}


def _child_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != check.SECRET_ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _read_lines(fd: int, proc: subprocess.Popen, deadline: float):
    """Yield JSON messages from the child until EOF; yields None once if the deadline passes."""
    buf = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            yield None
            return
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue  # a forged or torn line is ignored, never trusted


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run_worker(lab: Lab, impl: str, sources: dict[str, str], device: str, mode: str,
               timeout: float | None, tmp: Path | None = None, extra: dict | None = None,
               on_message=None, wrapper: list[str] | None = None,
               env: dict | None = None) -> dict:
    """Start the worker, feed it the request, collect its messages until EOF or the deadline.

    `on_message(msg)` may return False to stop early (the child is then killed).
    """
    timeout = timeout or DEFAULT_TIMEOUT[device]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tclab-") as own:
        tmp = Path(tmp or own)
        request = {"lab": lab.id, "impl": impl, "sources": sources, "device": device,
                   "mode": mode, "workdir": str(tmp), "seed_salt": secrets.token_hex(16),
                   **(extra or {})}
        rfd, wfd = os.pipe()
        out_path = tmp / "output.txt"
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(
                [*(wrapper or []), sys.executable, "-m", "grader.worker", str(wfd)],
                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, pass_fds=(wfd,),
                env={**_child_env(), **(env or {})},
                cwd=tmp, start_new_session=True)
        os.close(wfd)
        try:
            proc.stdin.write(json.dumps(request).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        messages, error, timed_out = [], None, False
        for msg in _read_lines(rfd, proc, started + timeout):
            if msg is None:
                timed_out = True
                break
            if msg.get("event") == "error":
                error = msg
                break
            if msg.get("event") in ("done", "loaded"):
                continue
            messages.append(msg)
            if on_message is not None and on_message(msg) is False:
                break
        os.close(rfd)
        _kill(proc)
        result = {"messages": messages, "timed_out": timed_out, "returncode": proc.returncode,
                  "output": _tail(out_path, 40 if wrapper else 15),
                  "seconds": round(time.monotonic() - started, 2),
                  "timeout": timeout}
        if error:
            result["error"] = error.get("message", "")
            result["summary"] = error.get("summary")
            result["kind"] = error.get("kind", "exception")
            result["error_index"] = error.get("index")
        elif timed_out:
            result["error"] = f"killed after {timeout:g} s"
            result["kind"] = "timeout"
        return result


def check_submission(lab: Lab, impl: str, sources: dict[str, str], suites: str | list[str],
                     device: str, timeout: float | None = None, dtype: str = "float32") -> dict:
    """Correctness of one implementation on the shapes of `suites`, in one process, stopping
    at the first wrong case."""
    suites = [suites] if isinstance(suites, str) else list(suites)
    suite = "+".join(suites)
    name = f"{IMPL_WORDS[impl]} {lab.impls[impl].kernel}"
    cases = [case for name_ in suites for case in check.cases(lab, name_)]
    none = {"passed": 0, "total": len(cases)}
    stubs = submission.stubbed_cells(sources)
    if stubs:
        return verdict(lab, impl, suite, device, "not_implemented",
                       f"not implemented: fill in {name} (cell {', '.join(stubs)})", **none)
    scan = audit.static_scan(sources)
    if scan:
        return verdict(lab, impl, suite, device, "fallback",
                       f"library fallback: {scan[0]}: compute with {name}, not torch",
                       details="\n".join(scan), **none)
    if not cases:
        return verdict(lab, impl, suite, device, "pass", "no shapes in this suite", **none)
    with tempfile.TemporaryDirectory(prefix="tclab-") as tmp:
        tmp = Path(tmp)
        originals, expected, requests = {}, {}, []
        for index, case in enumerate(cases):
            inputs = check.make_inputs(lab, case.shape, case.seed, check.DTYPES[dtype])
            originals[index] = inputs
            expected[index] = check.oracle(lab, inputs)
            file = tmp / f"case{index}.pt"
            torch.save(inputs, file)
            requests.append({"index": index, "shape": case.shape, "file": str(file),
                             "result": str(tmp / f"result{index}.pt")})
        results = []

        def on_case(msg) -> bool:
            index = len(results)
            if msg.get("event") != "case" or msg.get("index") != index:
                return True  # out-of-order or forged messages are ignored
            case = cases[index]
            saved = torch.load(tmp / f"result{index}.pt")
            problem, kind = None, "fail"
            where = f"{lab.id} [{lab.describe(case.shape)}]"
            if msg.get("foreign"):
                kind = "fallback"
                problem = (f"{where}: library fallback: the launcher itself ran "
                           f"{', '.join(sorted(set(msg['foreign'])))}; the result must come "
                           f"from {name}")
            elif msg.get("launches", {}).get(impl, 1) == 0:
                kind = "fallback"
                problem = (f"{where}: no {IMPL_WORDS[impl]} kernel was launched: "
                           f"{lab.impls[impl].launcher}() must launch {name}")
            for out_name, want in expected[index].items():
                problem = problem or check.compare(lab, case.shape, out_name,
                                                   saved["outputs"][out_name], want, dtype)
            problem = problem or check.mutated(originals[index], saved["inputs"])
            for schedule, outputs in saved.get("schedules", {}).items():
                other = next(filter(None, (
                    check.compare(lab, case.shape, out_name, outputs[out_name], want, dtype)
                    for out_name, want in expected[index].items())), None)
                if (problem is None) != (other is None):
                    kind, problem = "race", check.race(where, schedule, problem is None)
            if problem and "never written" in problem and msg.get("returned"):
                problem += (f" The launcher returned {msg['returned']}: the checks read the "
                            "`out` it was given, so write into it.")
            results.append({"suite": case.suite, "shape": case.shape, "ok": problem is None,
                            "message": problem, "kind": kind, "seconds": msg.get("seconds")})
            return problem is None

        # Without a GPU, CUDA C runs in the CPU backend's checked mode (a read past any buffer
        # faults and names the kernel; on a GPU, memcheck does that job),
        # and every launch runs a second time with each block's threads in reverse order.
        cpu_cuda = device == "cpu" and impl == "cuda"
        run = run_worker(lab, impl, sources, device, "check", timeout, tmp,
                         {"dtype": dtype, "cases": requests,
                          "schedules": ["reverse"] if cpu_cuda else []}, on_case,
                         env={"TCLAB_CUDA_CHECKED": "1"} if cpu_cuda else None)
    passed = sum(r["ok"] for r in results)
    common = {"passed": passed, "total": len(cases), "cases": results,
              "seconds": run["seconds"]}
    current = len(results) - (0 if not results or results[-1]["ok"] else 1)
    shape = lab.describe(cases[current].shape) if current < len(cases) else "?"
    if run.get("kind") == "timeout":
        return verdict(lab, impl, suite, device, "timeout",
                       f"killed after {run['timeout']:g} s: {name} did not finish on [{shape}] "
                       "(an infinite loop, or a grid far too large?)", output=run["output"],
                       **common)
    if run.get("error") is not None:
        index = run.get("error_index")
        where = "" if index is None else f" on [{lab.describe(cases[index].shape)}]"
        kind, message = run["kind"], run["error"]
        if kind == "compile_error":
            first = f"compile error in {name}: {_first_error_line(message)}"
        elif kind == "not_implemented":
            first = f"not implemented: fill in {name}"
        else:
            first = run.get("summary") or (message.strip().splitlines()[-1]
                                           if message.strip() else kind)
        return verdict(lab, impl, suite, device, kind, f"{first}{where}", details=message,
                       output=run["output"], **common)
    failed = [r for r in results if not r["ok"]]
    if failed and "never written" in failed[0]["message"] and submission.c_stub_left(sources):
        return verdict(lab, impl, suite, device, "not_implemented",
                       f"not implemented: fill in {name} (its output was never written)",
                       **common)
    if failed:
        return verdict(lab, impl, suite, device, failed[0]["kind"],
                       failed[0]["message"].splitlines()[0],
                       details=failed[0]["message"], output=run["output"], **common)
    if passed < len(cases):
        crash = f"the process died (exit code {run['returncode']}) on [{shape}]"
        return verdict(lab, impl, suite, device, "crash", f"{name}: {crash}",
                       details=run["output"], output=run["output"], **common)
    return verdict(lab, impl, suite, device, "pass", f"{passed}/{len(cases)} shapes correct",
                   **common)


def _first_error_line(message: str) -> str:
    """The compiler's first diagnostic (`kernel.cu:5:36: error: ...`), else the last line."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    for pattern in (r"\berror\b.*:|:\s*error\b", r"\berror\b"):
        for line in lines:
            if re.search(pattern, line) and not line.startswith(("File ", "raise ", "Traceback")):
                return line.removeprefix("grader.cuda.errors.CompileError: ")
    return lines[-1] if lines else "compile error"

SANITIZER = "compute-sanitizer"
_SANITIZER_ERROR = re.compile(r"=+ (Invalid __\w+__ (?:read|write) of size \d+ bytes|"
                              r"Out-of-range \w+ access|Program hit \w+.*)")
_SANITIZER_AT = re.compile(r"=+\s+at (?:0x[0-9a-f]+ in )?([\w:<>, ]+?)(?:\+0x[0-9a-f]+)?(?: in |$)")


def memcheck_submission(lab: Lab, impl: str, sources: dict[str, str],
                        timeout: float | None = None) -> dict:
    """One launch on a small tail shape under compute-sanitizer memcheck (GPU only).

    The caching allocator is off so each tensor is its own allocation: an access past an input
    is outside every allocation, which is what memcheck can see.
    """
    tool = shutil.which(SANITIZER)
    if tool is None:
        return verdict(lab, impl, "memcheck", "gpu", "skipped",
                       f"skipped: {SANITIZER} not found")
    case = check.cases(lab, "public")[1 if len(lab.shapes["public"]) > 1 else 0]
    with tempfile.TemporaryDirectory(prefix="tclab-") as tmp:
        tmp = Path(tmp)
        inputs = check.make_inputs(lab, case.shape, case.seed, torch.float32)
        torch.save(inputs, tmp / "case.pt")
        request = [{"index": case.index, "shape": case.shape, "file": str(tmp / "case.pt"),
                    "result": str(tmp / "result.pt")}]
        run = run_worker(lab, impl, sources, "gpu", "check", (timeout or 120) * 2, tmp,
                         {"dtype": "float32", "cases": request},
                         wrapper=[tool, "--tool", "memcheck", "--print-limit", "3",
                                  "--error-exitcode", "86"],
                         env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})
    output = run["output"]
    errors = _SANITIZER_ERROR.findall(output)
    if errors or run["returncode"] == 86:
        where = _SANITIZER_AT.findall(output)
        kernel = where[0].strip() if where else lab.impls[impl].kernel
        first = errors[0] if errors else "memory error"
        return verdict(lab, impl, "memcheck", "gpu", "memory_error",
                       f"{SANITIZER}: {first} in {kernel} on [{lab.describe(case.shape)}]",
                       details=output)
    if run.get("error") is not None:
        return verdict(lab, impl, "memcheck", "gpu", run["kind"],
                       f"under {SANITIZER}: {run['error'].strip().splitlines()[-1]}",
                       details=run["error"])
    return verdict(lab, impl, "memcheck", "gpu", "pass",
                   f"no invalid access on [{lab.describe(case.shape)}]")
