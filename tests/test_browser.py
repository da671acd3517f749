"""The student path in a real browser: JupyterLab, headless Chromium, every lab filled in by hand.

For each lab in the registry, the released notebook is copied to a temp folder and opened in
JupyterLab; each solution cell (found by its nbgrader grade_id) is replaced through its
CodeMirror editor with the lab's solution, Run All runs it, and every public test cell must
print "... shapes correct" with no error output anywhere. The server starts as a student's
does: nothing preset (no TCLAB_DEVICE, no TRITON_INTERPRET), so the notebook must pick the
device itself. A screenshot per lab goes to results/browser/<lab>.png ($OUT/browser/ when OUT
is set), with the server's log.

Which labs: three by default (lab01, the first a student opens; lab07; lab10, the largest
notebook, with dynamic shared memory and tensor cores on the CPU backend), about 22 s each on
2 cores: what this test adds is JupyterLab itself (its editor, Run All, the outputs it shows),
the same for every lab, and tests/test_notebooks_run.py executes every lab's notebook headless
as students run it. `TCLAB_BROWSER_LABS=all` (or a list: "lab03 lab05") runs others.

Chromium comes from Debian (`apt-get install -y chromium`), never from `playwright install`.

    pytest tests/test_browser.py -k lab07
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

from grader.base import paths
from grader.lab import manifest, release, submission

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]  # one server

DEFAULT_LABS = ("lab01", "lab07", "lab10")
_CHOSEN = os.environ.get("TCLAB_BROWSER_LABS", " ".join(DEFAULT_LABS)).split()
LABS = sorted(lab.id for lab in manifest.select(None if _CHOSEN == ["all"] else _CHOSEN))
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(os.environ["OUT"]) / "browser" if os.environ.get("OUT") else \
    paths.ROOT / "results" / "browser"
LAUNCH_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
ACTIVE = ".jp-NotebookPanel:not(.lm-mod-hidden)"
STDERR = "[data-mime-type='application/vnd.jupyter.stderr']"  # stderr streams and tracebacks
RUN_LIMIT_S = 300  # Run All on 2 CPU cores: the Triton interpreter and the CUDA CPU backend
MARKERS = {release.PY_BEGIN, release.PY_END, release.C_BEGIN, release.C_END}


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
    """A JupyterLab server on loopback; its kernels are shut down with it."""

    def __init__(self, root: Path, log: Path):
        self.root = root
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        # As a student starts it: the notebook itself must pick the device and, without a GPU,
        # switch Triton to its interpreter.
        env = {k: v for k, v in os.environ.items()
               if k not in ("TCLAB_DEVICE", "TCLAB_SECRET_SEED", "TRITON_INTERPRET")}
        env["JUPYTER_CONFIG_DIR"] = str(root / ".cfg")
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

    def shutdown_kernels(self) -> None:
        """Kernels outlive the page: shut their sessions down over REST (DELETE needs _xsrf)."""
        try:
            self.http.open(f"{self.url}/lab", timeout=10).read()  # sets the _xsrf cookie
            for session in json.loads(self._request("GET", "/api/sessions")):
                self._request("DELETE", f"/api/sessions/{session['id']}")
        except OSError:
            pass

    def stop(self) -> None:
        """Kernels first, then the server, by its own pid."""
        self.shutdown_kernels()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="module")  # not session: the course tests count leftover processes
def browser(tmp_path_factory):
    """One JupyterLab server and one Chromium for every lab: (server, browser)."""
    chromium = _chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    SHOTS.mkdir(parents=True, exist_ok=True)
    server = Lab(tmp_path_factory.mktemp("jupyterlab"), SHOTS / "jupyterlab.log")
    try:
        with sync_api.sync_playwright() as p:
            chrome = p.chromium.launch(executable_path=str(chromium), args=LAUNCH_ARGS)
            yield server, chrome
            chrome.close()
    finally:
        server.stop()


def _typed(source: str) -> str:
    """A solution cell as a student would type it: the solution markers left out."""
    return "\n".join(ln for ln in source.splitlines() if ln.strip() not in MARKERS)


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
    """Run All, then wait until some prompt reads [n] and none [*] (it stops at an error)."""
    page.locator(".lm-MenuBar-itemLabel:text-is('Run')").click()
    page.locator(".lm-Menu-itemLabel:text-is('Run All Cells')").click()
    prompts = page.locator(f"{ACTIVE} .jp-InputArea-prompt")
    deadline = time.monotonic() + RUN_LIMIT_S
    while time.monotonic() < deadline:
        texts = prompts.all_text_contents()
        if any("[*]" in t for t in texts) or not any(t.strip("[]: ").isdigit() for t in texts):
            page.wait_for_timeout(1000)
            continue
        return
    pytest.fail(f"Run All did not finish in {RUN_LIMIT_S} s; prompts: "
                f"{prompts.all_text_contents()}")


def _outputs(page, index: int) -> str:
    cell = page.locator(f"{ACTIVE} .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    return "\n".join(cell.locator(".jp-OutputArea-output").all_text_contents()).strip()


@pytest.mark.parametrize("lab_id", LABS)
def test_student_fills_the_lab_in_jupyterlab(lab_id, browser):
    server, chrome = browser
    lab = manifest.get(lab_id)
    copy = server.root / lab.notebook_name  # autosave writes back: never the repo's file
    shutil.copy(lab.exercise_path, copy)
    released = nbformat.read(copy, as_version=4)
    cells = lab.solution_cells()
    answers = submission.cell_sources(release.source_notebook(lab), cells, str(lab.source))
    index = {submission.grade_id(c): i for i, c in enumerate(released.cells)}
    missing = [gid for gid in cells if gid not in index]
    assert not missing, f"{lab.exercise_path}: no cell with grade_id {missing}"
    tests = [i for i, c in enumerate(released.cells)
             if (submission.grade_id(c) or "").startswith("test_")]
    shot = SHOTS / f"{lab_id}.png"
    page = chrome.new_page(viewport={"width": 1400, "height": 1600})
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{server.url}/lab/tree/{lab.notebook_name}?reset")
        page.locator(f"{ACTIVE} .jp-Notebook-ExecutionIndicator[data-status='idle']") \
            .wait_for(timeout=90_000)
        for gid in cells:
            _fill(page, index[gid], _typed(answers[gid]))
        _run_all(page)
        outputs = {i: _outputs(page, i) for i in tests}
        errors = page.locator(f"{ACTIVE} {STDERR}")
        error_text = "\n---\n".join(t.strip() for t in errors.all_text_contents())
        news = page.get_by_role("button", name="No", exact=True)  # "notified about news?"
        if news.count():
            news.first.click()
        if tests:
            page.locator(f"{ACTIVE} .jp-Cell").nth(tests[0]).scroll_into_view_if_needed()
        page.screenshot(path=str(shot))
    finally:
        page.close()
        server.shutdown_kernels()
    assert tests, f"{lab.exercise_path}: no grade cell named test_*"
    for i, out in outputs.items():
        gid = submission.grade_id(released.cells[i])
        assert "shapes correct" in out, (
            f"{lab_id}: cell {i} ({gid}) should print '... shapes correct' after the solution "
            f"was typed in; it printed:\n{out or '(nothing)'}\nerror output in the notebook:\n"
            f"{error_text or '(none)'}\nscreenshot: {shot}")
    assert not error_text, f"{lab_id}: error output in the notebook:\n{error_text}\n" \
                           f"screenshot: {shot}"
