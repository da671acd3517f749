"""The student path in a real browser: JupyterLab, headless Chromium, lab01 filled in by typing.

The released notebook is copied to a temp folder, opened in JupyterLab, every stub cell is
replaced through its CodeMirror editor with the lab's solution, Run All runs it, and the
public test cells must print "... shapes correct". A screenshot goes to tests/artifacts/.

Chromium comes from Debian (`apt-get install -y chromium`), never from `playwright install`.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from grader import manifest, submission

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
LAUNCH_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
ACTIVE = ".jp-NotebookPanel:not(.lm-mod-hidden)"
RUN_LIMIT_S = 300  # Run All on 2 CPU cores: the Triton interpreter and the CUDA CPU backend


def _chromium() -> Path:
    if CHROMIUM.exists():
        return CHROMIUM
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip(f"{CHROMIUM} is missing and this user cannot `apt-get install -y chromium` "
                    "(not root, or no apt): install Debian's chromium to run this test")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "chromium"]):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.fail(f"`{' '.join(cmd)}` failed (exit {proc.returncode}):\n"
                        f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    assert CHROMIUM.exists(), f"apt-get installed chromium but {CHROMIUM} is not there"
    return CHROMIUM


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A JupyterLab server on loopback, for one test; its kernels are shut down with it."""

    def __init__(self, root: Path, log: Path):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "TCLAB_DEVICE": "cpu", "JUPYTER_CONFIG_DIR": str(root / ".cfg")}
        # As a student starts it: the notebook itself must switch Triton to its interpreter.
        for name in ("TCLAB_SECRET_SEED", "TRITON_INTERPRET"):
            env.pop(name, None)
        self.log = open(log, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={self.port}",
             "--ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password=", "--allow-root",
             f"--ServerApp.root_dir={root}", f"--LabApp.workspaces_dir={root / '.workspaces'}"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.cookies = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited {self.proc.returncode}: see {log}")
            try:
                self.http.open(f"{self.url}/api/status", timeout=2).read()
                return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer on port {self.port} in 90 s: see {log}")

    def _request(self, method: str, path: str):
        xsrf = next((c.value for c in self.cookies if c.name == "_xsrf"), "")
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"X-XSRFToken": xsrf})
        return self.http.open(req, timeout=10).read()

    def stop(self) -> None:
        """Kernels first (they outlive the page), over REST; then the server, by its own pid."""
        try:
            self.http.open(f"{self.url}/lab", timeout=10).read()  # sets the _xsrf cookie
            for session in json.loads(self._request("GET", "/api/sessions")):
                self._request("DELETE", f"/api/sessions/{session['id']}")
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _fill(page, index: int, text: str) -> None:
    """Replace cell `index`'s source as a student would: click, select all, paste."""
    cell = page.locator(f"{ACTIVE} .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    editor = cell.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)  # a paste: no auto-indent or auto-closed brackets


def _run_all(page) -> None:
    page.locator(".lm-MenuBar-itemLabel:text-is('Run')").click()
    page.locator(".lm-Menu-itemLabel:text-is('Run All Cells')").click()
    prompts = page.locator(f"{ACTIVE} .jp-InputArea-prompt")
    deadline = time.monotonic() + RUN_LIMIT_S
    while time.monotonic() < deadline:
        texts = prompts.all_inner_texts()
        if any("[*]" in t for t in texts) or not any(t.strip("[]: ").isdigit() for t in texts):
            page.wait_for_timeout(1000)
            continue
        return
    pytest.fail(f"Run All did not finish in {RUN_LIMIT_S} s; prompts: {prompts.all_inner_texts()}")


def test_student_fills_the_vector_add_lab_in_jupyterlab(tmp_path):
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    lab = manifest.get("lab01")
    shutil.copy(lab.exercise, tmp_path / lab.exercise.name)
    released = nbformat.read(lab.exercise, as_version=4)
    solution = submission.read_notebook(lab.source)
    cells = [gid for impl in lab.impls.values() for gid in impl.cells]
    answers = submission.cell_sources(solution, tuple(cells), str(lab.source))
    index = {submission.grade_id(c): i for i, c in enumerate(released.cells)}
    ARTIFACTS.mkdir(exist_ok=True)
    server = Lab(tmp_path, ARTIFACTS / "jupyterlab.log")
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(chromium), args=LAUNCH_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(f"{server.url}/lab/tree/{lab.exercise.name}?reset")
            page.locator(f"{ACTIVE} .jp-Notebook-ExecutionIndicator[data-status='idle']") \
                .wait_for(timeout=90_000)
            for gid in cells:
                _fill(page, index[gid], answers[gid])
            _run_all(page)
            outputs = {}
            for gid in ("test_triton", "test_cuda"):
                cell = page.locator(f"{ACTIVE} .jp-Cell").nth(index[gid])
                cell.scroll_into_view_if_needed()
                outputs[gid] = "\n".join(cell.locator(".jp-OutputArea-output").all_inner_texts())
            page.screenshot(path=str(ARTIFACTS / "lab01_jupyterlab.png"), full_page=True)
            errors = page.locator(f"{ACTIVE} [data-mime-type='application/vnd.jupyter.stderr']")
            error_text = "\n".join(errors.all_inner_texts())
            browser.close()
    finally:
        server.stop()
    for gid, impl in (("test_triton", "triton"), ("test_cuda", "cuda")):
        want = f"{lab.id} {impl} [public]:"
        assert want in outputs[gid] and "shapes correct" in outputs[gid], (
            f"{gid} should print {want!r} ... 'shapes correct' after the solution was typed in; "
            f"it printed:\n{outputs[gid] or '(nothing)'}\nstderr in the notebook:\n{error_text}\n"
            f"screenshot: {ARTIFACTS / 'lab01_jupyterlab.png'}")
