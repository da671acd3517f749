"""The host process: the student's cells run here, against phantoms, and nowhere else.

The device process (`execution.worker`) forks it before it holds any data or any CUDA context;
the child then leaves the device's reach for good (`isolate`): a user namespace of its own
(no capability over the device process, whose memory it can therefore not read), a mount
namespace whose /dev is empty (no GPU: no CUDA context can ever exist here), stdin and the
device's pipes closed. It loads the cells, says "loaded", then answers each job (the geometry
of one call's tensors and its scalar parameters) with the stream the launcher recorded.

    link = HostLink.start(request, close=[msg_fd, res_fd])   # in the device process
    link.loaded()       -> None, or an error Message
    link.record(tensors, params) -> {"stream": ..., "returned": ...} or {"error": {...}}
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
from pathlib import Path

from grader.base import wire

CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000
PR_SET_DUMPABLE = 4


class HostDied(RuntimeError):
    """The host process ended without an answer."""


def private_folders(request: dict) -> list[str]:
    """What the device process writes and later reads or runs: its folder (the kernels module
    it imports, its compilers' temporary files: `device_tmp`), the compile caches (Triton's
    hold shared libraries it loads) and its home. The host gets an empty folder of its own
    over each, so it can plant nothing there; never over one that holds what the host itself
    imports (Python, the grader: a project or a home under /tmp, an unsandboxed run's home)."""
    found = [request.get("workdir") or "", os.environ.get("HOME", "")]
    found += [os.environ.get(v, "") for v in ("TRITON_CACHE_DIR", "TCLAB_CACHE",
                                               "XDG_CACHE_HOME", "PYCUDA_CACHE_DIR")]
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # grader/
    needed = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, *sys.path, package) if p]
    keep = []
    for folder in dict.fromkeys(f for f in found if f and os.path.isdir(f)):
        real = os.path.realpath(folder).rstrip("/") + "/"
        if not any((p + "/").startswith(real) for p in needed):
            keep.append(folder)
    return keep


def device_tmp(workdir: str) -> None:
    """The device process's temporary files (its compilers') in its own folder, which the
    host cannot see: never in the /tmp the two share."""
    import tempfile

    folder = os.path.join(workdir, "tmp")
    os.makedirs(folder, exist_ok=True)
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = folder


def isolate(private=()) -> str:
    """Cut this (host) process off from the device process and the GPU, and give it empty
    folders of its own over `private`; "" or why not."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
        err = ctypes.get_errno()
        if os.getuid() == 0:  # no user namespaces here: drop root instead
            try:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                return ""
            except OSError:
                pass
        return f"no user namespace for the host process ({os.strerror(err)})"
    _map_self(uid, gid)
    done: list[str] = []
    for folder in sorted(["/dev", *private], key=lambda f: f.count("/")):
        if any(folder == d or folder.startswith(d.rstrip("/") + "/") for d in done):
            continue  # already inside an empty folder of the host's own
        if libc.mount(b"none", folder.encode(), b"tmpfs", 0, None) != 0:
            return f"{folder} stays shared with the host process " \
                   f"({os.strerror(ctypes.get_errno())})"
        done.append(folder)
    for folder in private:  # the host's own, empty, where the device's were
        os.makedirs(folder, exist_ok=True)
    return ""


def _map_self(uid: int, gid: int) -> None:
    """Inside its new user namespace the host is who it was outside (one id mapped to itself):
    it can create files in its own folders, and still holds no capability over the device."""
    try:
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError:
        pass  # (always allowed for one's own ids: user_namespaces(7))


def _nondumpable() -> None:
    """The device process's memory: not readable by a process without CAP_SYS_PTRACE."""
    try:
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


class HostLink:
    """The device process's end of its host."""

    def __init__(self, pid: int, to_host: int, from_host: int):
        self.pid, self._to, self._from = pid, to_host, from_host

    @classmethod
    def start(cls, request: dict, close: list[int]) -> HostLink:
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.close(to_w)
                os.close(from_r)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                for fd in close:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
                main(request, to_r, from_w)
            except BaseException:  # noqa: BLE001 - reported as the host's death
                import traceback

                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        os.close(to_r)
        os.close(from_w)
        _nondumpable()
        if request.get("workdir"):
            device_tmp(request["workdir"])
        return cls(pid, to_w, from_r)

    def _answer(self) -> dict:
        try:
            frame = wire.read(self._from)
        except wire.WireError:
            frame = b""
        if not frame:
            raise HostDied(self._death())
        try:
            answer = json.loads(bytes(frame))
        except (ValueError, UnicodeDecodeError):
            raise HostDied("the launcher's process sent something that is not an answer") \
                from None
        if not isinstance(answer, dict):
            raise HostDied("the launcher's process sent something that is not an answer")
        return answer

    def _death(self) -> str:
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return "the launcher's process ended"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ \
                else str(sig)
            hint = (": raw memory at a tensor's address faults, the host holds no device data"
                    if sig in (signal.SIGSEGV, signal.SIGBUS) else "")
            return f"the launcher's process was killed by {name}{hint}"
        return f"the launcher's process exited (status {os.WEXITSTATUS(status)})"

    def loaded(self) -> dict:
        return self._answer()

    def record(self, tensors: list[dict], params: list, gpu: dict | None = None) -> dict:
        """The stream the launcher records for these tensors (geometry only) and scalars;
        `gpu`: what the host's torch.cuda says of the GPU."""
        wire.write(self._to, json.dumps({"tensors": tensors, "params": params,
                                         "gpu": gpu or {}}).encode())
        return self._answer()

    def close(self) -> None:
        for fd in (self._to, self._from):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def _error(exc: BaseException, describe, rec=None) -> dict:
    from grader.execution import phantom
    from grader.judge import correctness

    msg = correctness.error_message(exc, None, describe)
    refused = phantom.refusal(exc, rec)
    return {"error": {"kind": "host_compute" if refused else msg.kind, "message": msg.message,
                      "summary": refused or msg.summary}}


def main(request: dict, rfd: int, wfd: int) -> None:
    """The host process's life: isolate, load the cells, answer jobs until the pipe closes."""
    why = isolate(private_folders(request))
    from grader.backends import device as dev
    from grader.execution import phantom
    from grader.lab import manifest, submission
    dev.use(request["device"])
    phantom.install_host(request["device"])
    lab = manifest.load(Path(request["lab"]) / "lab.toml", request["manifest"])
    ex = lab.exercise(request["exercise"].partition("/")[2] or None)
    spec = ex.impls[request["impl"]]
    folder = Path(request["workdir"]) / "host"  # on the host's own empty folder
    folder.mkdir(parents=True, exist_ok=True)

    lock = threading.Lock()  # a refusal in a helper thread is sent at once, beside main's

    def send(obj: dict) -> None:
        with lock:
            wire.write(wfd, json.dumps(obj).encode())

    built = None
    try:
        built = submission.write_module(request["setup"], request["sources"], folder)
        module = submission.import_module(built)
        launcher = getattr(module, spec.launcher, None)
        if not callable(launcher):
            raise NameError(f"the solution cells define no function {spec.launcher}()")
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises
        send(_error(exc, lambda e: submission.describe(e, built)))
        return
    if why:  # grading goes on; the worker's output says what the host could still reach
        print(f"host process not fully isolated: {why}", file=sys.stderr, flush=True)
    send({"loaded": True})
    while True:
        try:
            frame = wire.read(rfd)
        except wire.WireError:
            return
        if not frame:
            return
        job = json.loads(bytes(frame))
        phantom.set_device(job.get("gpu") or {})
        rec = phantom.Recorder(request["device"], ex.allowed_ops)
        rec.notify = lambda name, text: send({"refused": name, "error": {
            "kind": "host_compute", "message": text, "summary": text}})
        tensors = [rec.given(g) for g in job["tensors"]]
        try:
            returned = phantom.launch(launcher, rec, tensors, job["params"])
        except BaseException as exc:  # noqa: BLE001
            send(_error(exc, lambda e: submission.describe(e, built), rec))
            continue
        send({"stream": rec.stream.to_dict(), "returned": describe_returned(returned)})


def describe_returned(value) -> str | None:
    """What a launcher returned, where it was a tensor (the checks read `out`, not that)."""
    import torch

    if isinstance(value, torch.Tensor):
        return f"a {str(value.dtype).removeprefix('torch.')} tensor of shape {tuple(value.shape)}"
    return None
