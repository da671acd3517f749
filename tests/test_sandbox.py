"""Student code runs where nothing is worth stealing: a submission that tries to read the
reference kernels, the labs' solutions, a course's secret seed and gradebook, the grading
user's home or environment variables, or to reach the network, finds nothing, and is graded
as the honest kernel it also is. The same submission without the sandbox finds all of it (the
negative control that shows the probe works)."""

from __future__ import annotations

import contextlib
import secrets
import socket
import sys
from pathlib import Path

import pytest

from grader.base import paths
from grader.execution import runner, sandbox
from grader.lab import manifest
from grader.pipeline import grading

LAB = manifest.get("lab01")
EX = LAB.exercise()

PROBE = '''
import os
import socket
import sys


def look():
    """Every target, the grader's own working directory through /proc, and the network."""
    found = []
    for path in {targets!r} + [f"/proc/{{os.getppid()}}/cwd/.tclab/secret_seed"]:
        try:
            with open(path, "rb") as f:
                f.read(1)
            found.append(path)
        except OSError:
            pass
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
        found.append("the network")
    except OSError:
        pass
    if os.environ.get("GITHUB_TOKEN") == {token!r}:
        found.append("the grading user's environment")
    return found


FOUND = look()  # when the cells are imported


@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add_triton(x, y, out):
    found = FOUND + look()  # and from inside the launcher, with the inputs in hand
    if found:
        raise RuntimeError("LEAK: " + ", ".join(found))
    n = out.numel()
    vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
'''


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """The course directory the grader runs in, a file in the grader's home, a listening
    socket; and the submission that looks for all of them."""
    course = tmp_path / "course"
    (course / ".tclab").mkdir(parents=True)
    (course / ".tclab" / "secret_seed").write_text("s3cret\n")
    (course / "gradebook.db").write_text("grades\n")
    monkeypatch.chdir(course)
    home_file = Path.home() / f".tclab-probe-{secrets.token_hex(4)}"
    home_file.write_text("private\n")
    token = secrets.token_hex(8)
    monkeypatch.setenv("GITHUB_TOKEN", token)  # the instructor's own: never the student's
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    targets = [str(next(paths.REFERENCE.glob("lab01_vector_add/*.cu"))),
               str(LAB.source), str(course / ".tclab" / "secret_seed"),
               str(course / "gradebook.db"), str(home_file)]
    source = PROBE.format(targets=targets, port=server.getsockname()[1], token=token)
    yield {EX.impls["triton"].cells[0]: source}
    home_file.unlink()
    server.close()


def grade(sources, device):
    return grading.grade_exercise(EX, "triton", sources, device, hidden=False, perf=False)


@pytest.mark.parametrize("served", [False, True], ids=["spawned", "served"])
def test_a_sandboxed_submission_finds_nothing(probe, device, served):
    """Spawned for its check, or forked by a worker server (grader.execution.runner.session)."""
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()}")
    with runner.session() if served else contextlib.nullcontext():
        result = grade(probe, device)
    assert result.correct, f"the probe found something: {result.reason}"
    assert not result.unsandboxed


def test_without_the_sandbox_the_probe_finds_everything(probe, device, monkeypatch):
    monkeypatch.setenv("TCLAB_SANDBOX", "0")
    sandbox.available.cache_clear()
    try:
        result = grade(probe, device)
    finally:
        sandbox.available.cache_clear()
    assert result.status == "exception" and "LEAK" in result.reason, result.reason
    # (Not the grader's folder through /proc: the launcher's parent is the device process,
    # in a folder of its own, and the host process may not read its /proc entries.)
    for what in ("vector_add.cu", "lab01_vector_add.py", "secret_seed", "gradebook.db",
                 ".tclab-probe-", "the network", "the grading user's environment"):
        assert what in result.reason, f"{what} not found without the sandbox: {result.reason}"
    assert result.unsandboxed == "TCLAB_SANDBOX=0"


def test_a_script_in_tmp_does_not_put_tmp_back(monkeypatch, tmp_path):
    """`python /tmp/x.py` puts /tmp on sys.path: the sandbox must still hide /tmp (and start:
    a read-only /tmp over the worker's home killed every worker)."""
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()}")
    monkeypatch.setattr(sys, "path", ["/tmp", *sys.path])
    args = sandbox.command(["true"], tmp_path, "cpu", {})
    pairs = list(zip(args, args[1:], args[2:]))
    assert ("--ro-bind", "/tmp", "/tmp") not in pairs, args
    assert any(a == "--tmpfs" and b == "/tmp" for a, b, _ in pairs), args


def test_only_the_reference_keeps_a_compile_cache(tmp_path):
    """A reference run's compile caches (Triton's, pycuda's, ours) live in a folder kept
    between runs, so the reference compiles once per machine; a student's process gets no
    such folder and cannot see it (the negative control)."""
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()}")
    import subprocess

    cache = tmp_path / "reference-cache"
    write = ("import os, pathlib; d = pathlib.Path(os.environ['TRITON_CACHE_DIR']); "
             "d.mkdir(parents=True, exist_ok=True); (d / 'kernel.cubin').write_text('x'); "
             "print(os.environ['XDG_CACHE_HOME'], os.environ['TCLAB_CACHE'])")
    work = tmp_path / "ref"
    work.mkdir()
    args = sandbox.command([sys.executable, "-c", write], work, "cpu", {}, cache=cache)
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (cache / "triton" / "kernel.cubin").read_text() == "x"
    assert proc.stdout.split() == [str(cache), f"{cache}/tclab"]
    look = (f"import os; print(os.path.exists({str(cache)!r}), os.environ['TCLAB_CACHE'], "
            "'TRITON_CACHE_DIR' in os.environ)")
    work = tmp_path / "student"
    work.mkdir()
    args = sandbox.command([sys.executable, "-c", look], work, "cpu", {})
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", f"{sandbox.HOME}/.cache/tclab", "False"]


def test_the_compile_caches_are_hidden_wherever_they_are(monkeypatch, tmp_path):
    """TCLAB_CACHE may point outside the home folder: a student's process still never sees
    it (nothing outside the allowlist is put back), never the reference's compiled kernels."""
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()}")
    monkeypatch.setattr(paths, "CACHE", tmp_path / "shared-cache")
    args = sandbox.command(["true"], tmp_path / "work", "cpu", {})
    assert not any(a.startswith(str(tmp_path / "shared-cache")) for a in args), args


def test_a_cpu_worker_loads_the_runtime_built_once_and_cannot_change_it(monkeypatch, tmp_path):
    """The CPU backend's runtime (our code, the same for every student) is built once, outside
    the sandbox, and put back read-only: a sandboxed worker loads that file and cannot write
    it. Without the folder put back (the control), the worker cannot see it and would build
    its own into its private cache."""
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()}")
    import subprocess

    from grader.backends.cuda import compiler

    monkeypatch.setenv("TCLAB_CACHE", str(tmp_path / "cache"))
    env = runner._child_env(None)  # as a worker's: PATH finds the same compiler inside
    readable = runner._shared_runtime("cpu", env)
    (folder, inside), = readable
    (shared,) = folder.glob("libtclab_rt-*.so")
    assert env[compiler.RUNTIME_DIR_ENV] == str(inside) == str(runner.RUNTIME_MOUNT)
    assert runner._shared_runtime("gpu", {}) == [], "pycuda needs no CPU runtime"
    probe = ("import os\nfrom grader.backends.cuda import compiler\n"
             "path = os.environ.get(compiler.RUNTIME_DIR_ENV, '') + "
             f"'/{shared.name}'\n"
             "print(os.path.exists(path))\n"
             "if os.path.exists(path):\n"
             "    print(compiler.build_runtime())\n"
             "    try:\n        open(path, 'ab')\n        print('written')\n"
             "    except OSError:\n        print('read-only')\n")
    for put_back in (True, False):
        work = tmp_path / f"work-{put_back}"
        work.mkdir()
        args = sandbox.command([sys.executable, "-c", probe], work, "cpu", dict(env),
                               readable if put_back else [])
        proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        want = ["True", str(inside / shared.name), "read-only"] if put_back else ["False"]
        assert proc.stdout.split() == want, (put_back, proc.stdout, proc.stderr)


def test_the_runtime_is_taken_from_its_folder_only_where_it_is(monkeypatch, tmp_path):
    """TCLAB_RUNTIME_DIR naming a folder with the runtime: no compiler runs. Naming an empty
    one, or none: the runtime is built into the cache, as before."""
    from grader.backends.cuda import compiler

    built = []

    def fake_run(cmd, cwd):
        built.append(cmd)
        Path(cmd[cmd.index("-o") + 1]).write_bytes(b"so")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    import subprocess

    monkeypatch.setattr(compiler, "_run", fake_run)
    monkeypatch.setenv("TCLAB_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "shared"
    monkeypatch.setenv(compiler.RUNTIME_DIR_ENV, str(folder))
    own = compiler.build_runtime()
    assert own.parent == compiler.cache_root() and len(built) == 1, "an empty folder: built"
    folder.mkdir()
    (folder / own.name).write_bytes(b"so")
    assert compiler.build_runtime() == folder / own.name and len(built) == 1


# --- which GPU device nodes a worker gets -----------------------------------------------------

GPUS = [("0", "GPU-aaaa-0000", "00000000:19:00.0"), ("1", "GPU-bbbb-1111", "00000000:3B:00.0")]


@pytest.fixture
def fake_host(tmp_path):
    """A /dev with two GPUs (minors 0 and 1) and the driver's /proc entries for them."""
    dev, proc = tmp_path / "dev", tmp_path / "gpus"
    for name in ("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"):
        (dev / name).parent.mkdir(parents=True, exist_ok=True)
        (dev / name).touch()
    for bus, minor in (("0000:19:00.0", 0), ("0000:3b:00.0", 1)):
        (proc / bus).mkdir(parents=True)
        (proc / bus / "information").write_text(f"Model: H200\nDevice Minor: {minor}\n")
    return dev, proc


def test_a_worker_sees_only_its_own_gpu(fake_host):
    dev, proc = fake_host
    nodes, env = sandbox.gpu_devices("1", GPUS, dev, proc)
    assert str(dev / "nvidia1") in nodes and str(dev / "nvidia0") not in nodes
    assert str(dev / "nvidiactl") in nodes and str(dev / "nvidia-uvm") in nodes
    # inside, the one GPU left is device 0: it is named by UUID, never by its host index
    assert env == {"CUDA_VISIBLE_DEVICES": "GPU-bbbb-1111"}
    nodes, env = sandbox.gpu_devices("GPU-aaaa", GPUS, dev, proc)  # a UUID prefix
    assert str(dev / "nvidia0") in nodes and str(dev / "nvidia1") not in nodes
    assert env == {"CUDA_VISIBLE_DEVICES": "GPU-aaaa-0000"}


def test_unassigned_or_unresolvable_gpus_keep_every_gpu_node(fake_host):
    dev, proc = fake_host
    every = {str(dev / "nvidia0"), str(dev / "nvidia1")}
    for visible, gpus in ((None, GPUS), ("", GPUS), ("7", GPUS), ("MIG-1234", GPUS), ("1", [])):
        nodes, env = sandbox.gpu_devices(visible, gpus, dev, proc)
        assert every <= set(nodes) and env == {}, visible
