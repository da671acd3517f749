"""Process plumbing for the worker: spawn, feed the request, stream messages, time-limit, kill.

It decides nothing: `grader.grading` prepares the request and hands what came back to a
judge's `decide()`. Each run is a fresh process in its own session, killed with its whole
process group when it finishes, stops early or passes its deadline.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader import check, paths
from grader.judge.verdict import Message, Outcome

DEFAULT_TIMEOUT = {"cpu": 180.0, "gpu": 120.0}


@dataclass
class Request:
    """What the worker is asked to do; travels as JSON on its stdin."""

    lab: str
    exercise: str
    impl: str
    device: str
    mode: str  # "check" | "perf"
    sources: dict[str, str]
    workdir: str = ""
    seed_salt: str = ""
    dtype: str = "float32"
    cases: list = field(default_factory=list)  # check: [{index, shape, file, result}]
    schedules: list = field(default_factory=list)  # check, CPU CUDA: ["reverse"]
    perf: dict = field(default_factory=dict)  # perf: {dtypes, repeat, sweep}


def _child_env(extra: dict | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != check.SECRET_ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return {**env, **(extra or {})}


def _messages(fd: int, deadline: float):
    """Messages from the child until EOF; yields None once if the deadline passes."""
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
            msg = Message.from_json(line)
            if msg is not None:  # a torn or forged line is ignored, never trusted
                yield msg


def _kill(proc: subprocess.Popen) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run(request: Request, timeout: float | None = None,
        on_message: Callable[[Message], bool] | None = None, wrapper: list[str] | None = None,
        env: dict | None = None) -> Outcome:
    """Run the worker on `request` until EOF, an error report, `on_message` returning False,
    or the deadline; the child is killed in every case."""
    timeout = timeout or DEFAULT_TIMEOUT[request.device]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tclab-") as own:
        workdir = Path(request.workdir or own)
        request.workdir = str(workdir)
        rfd, wfd = os.pipe()
        out_path = workdir / "output.txt"
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(
                [*(wrapper or []), sys.executable, "-m", "grader.worker", str(wfd)],
                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, pass_fds=(wfd,),
                env=_child_env(env), cwd=workdir, start_new_session=True)
        os.close(wfd)
        try:
            proc.stdin.write(json.dumps(request.__dict__).encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        outcome = Outcome(timeout=timeout)
        for msg in _messages(rfd, started + timeout):
            if msg is None:
                outcome.timed_out = True
                break
            if msg.event == "error":
                outcome.error = msg
                break
            if msg.event in ("done", "loaded"):
                continue
            outcome.messages.append(msg)
            if on_message is not None and on_message(msg) is False:
                break
        os.close(rfd)
        _kill(proc)
        outcome.returncode = proc.returncode
        # Under a wrapper (compute-sanitizer) its report comes before the traceback it causes.
        outcome.output = _tail(out_path, 400 if wrapper else 15)
        outcome.seconds = round(time.monotonic() - started, 2)
        return outcome
