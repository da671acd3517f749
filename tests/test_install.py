"""scripts/install_torch.py: the install takes only the torch build the machine needs.

Routes are decided by a pure function (route) on what the machine says (GPU, platform, the
CPU index answering), so each is tested without the machine having it; pip's own resolution
is tested offline on two small local indexes that stand in for PyTorch's CPU index and a
configured index carrying the CUDA build.
"""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "install_torch.py"
_spec = importlib.util.spec_from_file_location("install_torch", SCRIPT)
install_torch = sys.modules.setdefault("install_torch", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(install_torch)

PIN = "torch==2.13.0"


def never(what):
    def called():
        raise AssertionError(f"{what} was asked, but the route should not depend on it")
    return called


def answers(value):
    return lambda: value


def index_args(cmd):
    """The index options of a composed pip command, as (option, value) pairs."""
    return [(opt, cmd[i + 1]) for i, opt in enumerate(cmd)
            if opt in ("--index-url", "-i", "--extra-index-url")]


# --- the routes ----------------------------------------------------------------------------

@pytest.mark.parametrize("requirement", [PIN, "torch==2.14.1"])
def test_no_gpu_on_linux_asks_the_cpu_index_for_the_pinned_torch(requirement):
    chosen = install_torch.route(requirement, "linux", "", answers(False), answers(None))
    cmd = install_torch.command("/venv/bin/python", requirement, chosen)
    assert chosen.name == "cpu", chosen
    assert index_args(cmd) == [("--index-url", install_torch.CPU_INDEX)], cmd
    assert cmd[0] == "/venv/bin/python" and cmd[1:4] == ["-m", "pip", "install"], cmd
    assert cmd[-1] == requirement and cmd.count(requirement) == 1, cmd


def test_a_gpu_takes_the_configured_index_without_probing_the_cpu_index():
    chosen = install_torch.route(PIN, "linux", "", answers(True), never("the CPU index probe"))
    cmd = install_torch.command("python", PIN, chosen)
    assert chosen.name == "cuda", chosen
    assert index_args(cmd) == [], f"a GPU machine must use the configured index: {cmd}"
    assert cmd[-1] == PIN, cmd


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_macos_and_windows_take_the_configured_index(platform):
    chosen = install_torch.route(PIN, platform, "", never("the GPU check"),
                                 never("the CPU index probe"))
    assert chosen.name == "configured", chosen
    assert index_args(install_torch.command("python", PIN, chosen)) == []


def test_an_unreachable_cpu_index_falls_back_to_the_configured_index_and_says_so():
    error = "[Errno -2] Name or service not known"
    chosen = install_torch.route(PIN, "linux", "", answers(False), answers(error))
    cmd = install_torch.command("python", PIN, chosen)
    assert chosen.name == "fallback", chosen
    assert index_args(cmd) == [], f"the fallback must leave pip's configured index: {cmd}"
    assert "\n" not in chosen.message, chosen.message
    for part in (install_torch.CPU_INDEX, error, PIN, "configured index"):
        assert part in chosen.message, f"{part!r} missing from {chosen.message!r}"


def test_the_fallback_prints_one_line_and_runs_the_configured_index(monkeypatch, capsys):
    ran = []
    monkeypatch.delenv(install_torch.FORCE_VARIABLE, raising=False)
    monkeypatch.setattr(install_torch.sys, "platform", "linux")
    monkeypatch.setattr(install_torch, "has_gpu", lambda: False)
    monkeypatch.setattr(install_torch, "probe", lambda: "timed out")
    monkeypatch.setattr(install_torch.subprocess, "call", lambda cmd: ran.append(cmd) or 0)
    assert install_torch.main([PIN]) == 0
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1, f"expected one line, got:\n{err}"
    assert "did not answer (timed out)" in err and "configured index" in err, err
    assert len(ran) == 1 and index_args(ran[0]) == [] and ran[0][-1] == PIN, ran


@pytest.mark.parametrize("force, gpu, expected", [
    ("cpu", True, "cpu"),     # a GPU machine that wants the small build
    ("cuda", False, "cuda"),  # a CPU machine preparing an environment for a GPU
])
def test_tclab_torch_build_forces_a_build(force, gpu, expected):
    chosen = install_torch.route(PIN, "linux", force, answers(gpu), answers(None))
    assert chosen.name == expected, chosen


def test_an_unknown_forced_build_is_refused(monkeypatch, capsys):
    monkeypatch.setenv(install_torch.FORCE_VARIABLE, "rocm")
    monkeypatch.setattr(install_torch.subprocess, "call", never("pip"))
    assert install_torch.main([PIN]) == 2
    assert "TCLAB_TORCH_BUILD='rocm'" in capsys.readouterr().err


# --- what the machine says -----------------------------------------------------------------

@pytest.mark.skipif(Path("/dev/nvidia0").exists(), reason="this machine has an NVIDIA GPU")
@pytest.mark.parametrize("output, status, expected", [
    ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)", 0, True),
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver", 9, False),
])
def test_has_gpu_asks_nvidia_smi(tmp_path, monkeypatch, output, status, expected):
    smi = tmp_path / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\necho '{output}'\nexit {status}\n")
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert install_torch.has_gpu() is expected


class _Index(http.server.BaseHTTPRequestHandler):
    status = 200

    def do_HEAD(self):
        self.send_response(self.status)
        self.end_headers()

    def log_message(self, *args):
        pass


def _serve(status):
    handler = type("Handler", (_Index,), {"status": status})
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def no_proxy(monkeypatch):
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1")


@pytest.mark.parametrize("status, expected", [(200, None), (404, "HTTP 404")])
def test_probe_reports_what_the_index_answered(no_proxy, status, expected):
    server = _serve(status)
    try:
        assert install_torch.probe(f"http://127.0.0.1:{server.server_port}/whl/cpu") == expected
    finally:
        server.shutdown()


def test_probe_gives_up_after_its_timeout(no_proxy):
    """A firewall that drops packets: the connection is accepted and nothing ever answers."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        start = time.monotonic()
        error = install_torch.probe(f"http://127.0.0.1:{silent.getsockname()[1]}/", seconds=0.5)
        took = time.monotonic() - start
    assert error is not None and took < 3, (error, took)


# --- what pip resolves ---------------------------------------------------------------------

def _wheel(files: Path, name: str, version: str, requires: tuple[str, ...]) -> str:
    """A minimal wheel: enough metadata for pip to resolve it."""
    filename = f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                        *(f"Requires-Dist: {r}\n" for r in requires)])
    wheel = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    with zipfile.ZipFile(files / filename, "w") as whl:
        whl.writestr(f"{name.replace('-', '_')}/__init__.py", "")
        whl.writestr(f"{info}/METADATA", metadata)
        whl.writestr(f"{info}/WHEEL", wheel)
        whl.writestr(f"{info}/RECORD", "")
    return filename


def _index(root: Path, projects: dict[str, tuple[str, tuple[str, ...]]]) -> str:
    """A PEP 503 index on disk, one wheel per project ({name: (version, requirements)});
    returns its file:// URL."""
    files = root / "files"
    files.mkdir(parents=True)
    for name, (version, requires) in projects.items():
        filename = _wheel(files, name, version, requires)
        page = root / "simple" / name
        page.mkdir(parents=True)
        page.joinpath("index.html").write_text(
            f'<!DOCTYPE html><html><body><a href="../../files/{filename}">{filename}</a>'
            "</body></html>\n")
    return (root / "simple").as_uri()


def _pip_env(**extra: str) -> dict[str, str]:
    """pip with no configuration but `extra`: the test's indexes only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INPUT": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def _resolve(cmd: list[str], report: Path, env: dict[str, str]) -> dict[str, str]:
    """pip's dry-run resolution of `cmd`: {project: version}, or the skip/failure output."""
    proc = subprocess.run([*cmd, "--dry-run", "--ignore-installed", "--report", str(report)],
                          capture_output=True, text=True, env=env, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(proc.stdout + proc.stderr)
    items = json.loads(report.read_text())["install"]
    return {item["metadata"]["name"].lower(): item["metadata"]["version"] for item in items}


@pytest.fixture
def two_indexes(tmp_path, monkeypatch):
    """PyTorch's CPU index (torch +cpu, no NVIDIA requirement) and a configured index that,
    like PyPI on Linux, carries the CUDA torch of the same release with an NVIDIA wheel."""
    cpu = _index(tmp_path / "cpu", {"torch": ("2.13.0+cpu", ())})
    configured = _index(tmp_path / "configured", {"torch": ("2.13.0", ("nvidia-cublas",)),
                                                  "nvidia-cublas": ("13.1.1.3", ())})
    monkeypatch.setattr(install_torch, "CPU_INDEX", cpu)
    return _pip_env(PIP_INDEX_URL=configured, PIP_EXTRA_INDEX_URL=configured)


def test_the_cpu_route_resolves_the_cpu_build_and_no_nvidia_wheel(two_indexes, tmp_path):
    """The configured index is also an extra index here, as pip.conf may make it: the +cpu
    build must still win over the CUDA build of the same release. The control: the fallback
    on the same indexes resolves the CUDA build and its NVIDIA wheel."""
    cpu = install_torch.route(PIN, "linux", "", answers(False), answers(None))
    got = _resolve(install_torch.command(sys.executable, PIN, cpu), tmp_path / "cpu.json",
                   two_indexes)
    assert got == {"torch": "2.13.0+cpu"}, f"the CPU route resolved {got}"

    fallback = install_torch.route(PIN, "linux", "", answers(False), answers("timed out"))
    got = _resolve(install_torch.command(sys.executable, PIN, fallback),
                   tmp_path / "fallback.json", two_indexes)
    assert got == {"torch": "2.13.0", "nvidia-cublas": "13.1.1.3"}, f"the control resolved {got}"


def test_this_machines_no_gpu_install_resolves_no_nvidia_wheel(tmp_path):
    """The command this machine runs without a GPU, resolved by pip with its own configuration
    but no network: a proxy that refuses every connection. Skipped where the resolution needs
    the network, and where the CPU index does not answer and the configured index serves the
    CUDA build (the fallback's one line says so at install time)."""
    chosen = install_torch.route(PIN, "linux", "", answers(False), install_torch.probe)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        refused = f"http://127.0.0.1:{closed.getsockname()[1]}"
    offline = {**os.environ, "HTTP_PROXY": refused, "HTTPS_PROXY": refused,
               "http_proxy": refused, "https_proxy": refused, "NO_PROXY": "", "no_proxy": ""}
    cmd = [*install_torch.command(sys.executable, PIN, chosen), "--retries", "0",
           "--timeout", "3"]
    try:
        got = _resolve(cmd, tmp_path / "report.json", offline)
    except RuntimeError as err:
        if "No matching distribution" in str(err) or "Could not find a version" in str(err):
            pytest.skip(f"{chosen.name} route: {PIN} and its dependencies need the network here")
        raise
    nvidia = sorted(name for name in got if name.startswith("nvidia-"))
    if nvidia and chosen.name == "fallback":
        pytest.skip(f"fallback: the configured index here serves the CUDA build ({nvidia})")
    assert "torch" in got and not nvidia, f"{chosen.name} route resolved {got}"
