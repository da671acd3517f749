"""The course on a real JupyterHub (deploy/hub): one Unix account per person, as root.

The recipe's own functions make the groups, the accounts (an instructor, three students) and
the exchange; JupyterHub (from PyPI) runs behind configurable-http-proxy (npm, installed
by the recipe into deploy/hub/node/). The instructor builds the course and releases lab01
as their own account; each student, holding a hub token of their own, starts their server
and fetches, fills (a solution, a stub, a wrong kernel that also peeks at the others' work)
and submits through the hub, the proxy and nbgrader's server extension; the instructor
collects, autogrades, and releases feedback, which each student fetches; the grades come
out of `nbgrader export`. Everything made here (accounts, groups, folders, processes) is
removed at the end, pass or fail. Without root, useradd or npm the test skips and says why.
"""

from __future__ import annotations

import csv
import grp
import html
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
import requests
from course_cases import students  # tests/ is on sys.path under pytest
from course_cases.course import NBGRADER, autograded

from grader.lab import manifest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub")]

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "deploy" / "hub"
sys.path.insert(0, str(RECIPE))
import hub  # noqa: E402 - deploy/hub/hub.py, the recipe under test

LAB = students.LAB01
BIN = Path(sys.executable).parent
RUN = secrets.token_hex(3)  # names unique per run: a crashed run's leftovers never clash
INSTRUCTOR = f"tch{RUN}i"
# account -> how the student fills the release (tests/course_cases/students.py)
CLASS = {f"tch{RUN}a": "solution", f"tch{RUN}b": "stub", f"tch{RUN}c": "wrong"}
GOOD, STUB, WRONG = CLASS
STUDENTS_GROUP, INSTRUCTORS_GROUP = f"tch{RUN}-stu", f"tch{RUN}-ins"


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root: it makes Unix accounts (useradd) and runs servers as them"
    for tool in ("useradd", "userdel", "groupadd", "groupdel"):
        if shutil.which(tool) is None:
            return f"needs {tool} (passwd package) to make the students' accounts"
    if shutil.which("npm") is None:
        return "needs npm: configurable-http-proxy, the hub's proxy, comes from npm"
    return None


if (_reason := _skip_reason()) is not None:
    pytest.skip(_reason, allow_module_level=True)


# --- accounts, folders and the processes, each undone at the end ---------------------------

ACL_XATTR = "system.posix_acl_access"
ACL_USER_OBJ, ACL_GROUP_OBJ, ACL_GROUP, ACL_MASK, ACL_OTHER = 0x01, 0x04, 0x08, 0x10, 0x20


def _acl_with_groups(mode: int, gids: list[int]) -> bytes:
    """A POSIX access ACL (the kernel's xattr form): `mode`, and x for each group."""
    undefined = 0xFFFFFFFF
    entries = [(ACL_USER_OBJ, mode >> 6 & 7, undefined), (ACL_GROUP_OBJ, mode >> 3 & 7, undefined)]
    entries += [(ACL_GROUP, 1, gid) for gid in sorted(gids)]
    entries += [(ACL_MASK, (mode >> 3 & 7) | 1, undefined), (ACL_OTHER, mode & 7, undefined)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def open_python_to(gids: list[int], undo: list) -> None:
    """Let these groups enter the folders above this Python and this project (a Python built
    under /root, which is 0700, say): execute-only, by an ACL, removed at the end."""
    unreadable = [p for p in (ROOT / "grader" / "__init__.py", Path(sys.executable).resolve())
                  if not os.stat(p).st_mode & 0o004]
    if unreadable:
        pytest.skip(f"{unreadable[0]} is not readable by other accounts (a checkout made "
                    "under umask 077?): the students' servers could not run it")
    blocked = {f for p in (Path(sys.executable), BIN, ROOT) for f in hub.blocked_folders(p)}
    for folder in sorted(blocked):
        mode = os.stat(folder).st_mode & 0o7777
        try:
            old = os.getxattr(folder, ACL_XATTR)
        except OSError:
            old = None
        try:
            os.setxattr(folder, ACL_XATTR, _acl_with_groups(mode, gids))
        except OSError as e:
            pytest.skip(f"{folder} holds this Python and is closed to other accounts, and "
                        f"this file system takes no ACL to open it ({e})")

        def restore(folder=folder, mode=mode, old=old):
            if old is None:
                os.removexattr(folder, ACL_XATTR)
            else:
                os.setxattr(folder, ACL_XATTR, old)
            os.chmod(folder, mode)

        undo.append(restore)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def account_env(name: str, **extra: str) -> dict:
    home = pwd.getpwnam(name).pw_dir
    return {"HOME": home, "USER": name, "LOGNAME": name, "LANG": "C.UTF-8",
            "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "PYTHONUNBUFFERED": "1", **extra}


def as_user(name: str, cmd: list[str], cwd: Path | None = None, check: bool = True,
            timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    """`cmd` as the account `name` (its uid, its groups, its home), as runuser would run it."""
    pw = pwd.getpwnam(name)
    proc = subprocess.run(cmd, cwd=cwd or pw.pw_dir, env=account_env(name, **env),
                          user=pw.pw_uid, group=pw.pw_gid,
                          extra_groups=os.getgrouplist(name, pw.pw_gid),
                          capture_output=True, text=True, timeout=timeout)
    if check:
        assert proc.returncode == 0, f"{name}: {' '.join(map(str, cmd))} exited " \
            f"{proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def can_read(name: str, path: Path) -> str:
    """What `name` gets from reading `path`: 'read', or the error's name."""
    code = ("import errno, os, sys\n"
            "try:\n"
            "    p = sys.argv[1]\n"
            "    os.listdir(p) if os.path.isdir(p) else open(p, 'rb').read(1)\n"
            "    print('read')\n"
            "except OSError as e:\n"
            "    print(errno.errorcode[e.errno])\n")
    return as_user(name, [sys.executable, "-c", code, str(path)]).stdout.strip()


def nbgrader_as(name: str, course: Path, *args: str, **env: str) -> str:
    proc = as_user(name, [sys.executable, "-c", NBGRADER, *args], cwd=course, **env)
    return proc.stdout + proc.stderr


def stop(proc: subprocess.Popen, timeout: float = 30) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def processes_of(uids: set[int]) -> list:
    import psutil

    return [p for p in psutil.process_iter(["uids", "cmdline"]) if p.info["uids"]
            and p.info["uids"].real in uids]


class Hub:
    def __init__(self, url: str, admin_token: str, log: Path):
        self.url, self.admin, self.log = url, admin_token, log
        self.tokens: dict[str, str] = {}

    def log_tail(self) -> str:
        return "\n--- the hub's log, last lines:\n" + "\n".join(
            self.log.read_text().splitlines()[-40:])

    def api(self, method: str, path: str, token: str | None = None, **kw):
        r = requests.request(method, f"{self.url}/hub/api{path}", timeout=60,
                             headers={"Authorization": f"token {token or self.admin}"}, **kw)
        assert r.status_code < 400, f"{method} /hub/api{path}: {r.status_code} " \
            f"{r.text[:500]}" + self.log_tail()
        return r.json() if r.content else None

    def server(self, name: str, method: str, path: str, **kw) -> requests.Response:
        """A request to `name`'s single-user server, through the proxy, with their token."""
        r = requests.request(method, f"{self.url}/user/{name}{path}", timeout=300,
                             headers={"Authorization": f"token {self.tokens[name]}"}, **kw)
        assert r.status_code < 400, f"{method} /user/{name}{path}: {r.status_code} " \
            f"{r.text[:2000]}"
        return r

    def nbgrader(self, name: str, action: str) -> dict:
        """nbgrader's assignment-list handler in `name`'s server: fetch, submit, ..."""
        out = self.server(name, "POST", f"/assignments/{action}",
                          data={"course_id": hub.COURSE_ID, "assignment_id": LAB}).json()
        assert out.get("success"), f"{name}: {action} failed:\n{out.get('value')}"
        return out

    def start(self, name: str) -> None:
        self.api("POST", f"/users/{name}/server", token=self.tokens[name])
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            model = self.api("GET", f"/users/{name}", token=self.tokens[name])
            if model["servers"].get("", {}).get("ready"):
                return
            time.sleep(0.5)
        raise AssertionError(f"{name}'s server did not start in 180 s" + self.log_tail())


@pytest.fixture(scope="module")
def site():
    """The groups, accounts, exchange and hub of one run; all removed at the end."""
    undo: list = []
    try:
        yield _make_site(undo)
    finally:
        errors = []
        for step in reversed(undo):
            try:
                step()
            except Exception as e:  # every step runs: one failure leaves nothing else behind
                errors.append(f"{getattr(step, '__name__', step)}: {e!r}")
        assert not errors, "cleanup failed:\n" + "\n".join(errors)


def _make_site(undo: list) -> dict:
    top = Path(tempfile.mkdtemp(prefix="tclab-hub-"))
    undo.append(lambda: shutil.rmtree(top))
    top.chmod(0o755)  # the accounts reach the exchange inside
    hub.make_groups(STUDENTS_GROUP, INSTRUCTORS_GROUP)
    for group in (STUDENTS_GROUP, INSTRUCTORS_GROUP):
        undo.append(lambda g=group: hub.run("groupdel", g))
    accounts = [INSTRUCTOR, *CLASS]
    for name in accounts:
        undo.append(lambda n=name: hub.run("userdel", "--remove", n))
        hub.add_user(name, INSTRUCTORS_GROUP if name == INSTRUCTOR else STUDENTS_GROUP)
    uids = {pwd.getpwnam(n).pw_uid for n in accounts}

    def kill_leftovers():
        left = processes_of(uids)
        for p in left:  # servers the hub failed to stop; started by this test's hub
            p.kill()
        assert not left, f"processes outlived the hub: {[p.info['cmdline'] for p in left]}"

    undo.append(kill_leftovers)
    open_python_to([grp.getgrnam(g).gr_gid for g in (STUDENTS_GROUP, INSTRUCTORS_GROUP)], undo)

    exchange = hub.make_exchange(top / "exchange")
    state = top / "state"
    port, admin = free_port(), secrets.token_hex(32)
    env = {**os.environ, "TCLAB_EXCHANGE": str(exchange), "TCLAB_HUB_STATE": str(state),
           "TCLAB_HUB_URL": f"http://127.0.0.1:{port}",
           "TCLAB_HUB_API_URL": f"http://127.0.0.1:{free_port()}",
           "TCLAB_PROXY_API_URL": f"http://127.0.0.1:{free_port()}",
           "TCLAB_STUDENTS": STUDENTS_GROUP, "TCLAB_INSTRUCTORS": INSTRUCTORS_GROUP,
           "TCLAB_HUB_ADMIN_TOKEN": admin}
    hub.install_proxy()  # before the hub's clock starts: npm may take a while once
    log = open(top / "jupyterhub.log", "w")
    proc = subprocess.Popen([str(BIN / "jupyterhub"), "-f", str(RECIPE / "jupyterhub_config.py")],
                            cwd=top, env=env, stdout=log, stderr=subprocess.STDOUT)

    def stop_hub():
        stop(proc)  # the hub stops the servers and the proxy it started
        log.close()
        proxy_pid = state / "jupyterhub-proxy.pid"
        if proxy_pid.exists():
            import psutil

            pid = int(proxy_pid.read_text())
            if psutil.pid_exists(pid) and "configurable-http-proxy" in " ".join(
                    psutil.Process(pid).cmdline()):
                os.kill(pid, 15)
                raise AssertionError("the proxy outlived the hub")

    undo.append(stop_hub)
    the_hub = Hub(f"http://127.0.0.1:{port}", admin, top / "jupyterhub.log")
    deadline = time.monotonic() + 90
    while True:
        assert proc.poll() is None, "the hub exited:\n" + (top / "jupyterhub.log").read_text()
        try:
            if requests.get(f"{the_hub.url}/hub/api/", timeout=5).ok:
                break
        except requests.ConnectionError:
            pass
        assert time.monotonic() < deadline, "no hub after 90 s:\n" + \
            (top / "jupyterhub.log").read_text()
        time.sleep(0.5)
    for name in CLASS:
        the_hub.api("POST", f"/users/{name}")
        the_hub.tokens[name] = the_hub.api("POST", f"/users/{name}/tokens",
                                           json={"note": "the course test"})["token"]
    return {"top": top, "exchange": exchange, "hub": the_hub, "log": top / "jupyterhub.log",
            "course": Path(pwd.getpwnam(INSTRUCTOR).pw_dir) / "course"}


# --- the students' work ---------------------------------------------------------------------

PEEK = '''
import errno as _errno
for _label, _path in {targets!r}:
    try:
        open(_path, "rb").read(1)
        print("PEEK-READ", _label)
    except OSError as _e:
        print("PEEK-DENIED", _label, _errno.errorcode[_e.errno])
'''


def wrong(lab, nb, peek_at: dict[str, str]):
    """Kernels that subtract where they should add, and a first cell that tries to read
    another student's work by its exact paths."""
    nb = students.solution(lab, nb)
    edits = {"vector_add_triton": [("(x + y)", "(x - y)")],
             "vector_add_cu": [("to_float(xs[k]) + to_float(ys[k])",
                                  "to_float(xs[k]) - to_float(ys[k])"),
                                 ("to_float(x[tail]) + to_float(y[tail])",
                                  "to_float(x[tail]) - to_float(y[tail])")]}
    for gid, swaps in edits.items():
        cell = students._cell(nb, gid)
        for old, new in swaps:
            assert old in cell.source, f"{gid}: {old!r} not in the solution: did the lab change?"
            cell.source = cell.source.replace(old, new)
    cell = students._cell(nb, "vector_add_triton")
    cell.source = PEEK.format(targets=sorted(peek_at.items())) + "\n" + cell.source
    return nb


def hand_in(the_hub: Hub, name: str, make) -> dict:
    """Start the server, fetch, fill the notebook through the contents API, submit."""
    the_hub.start(name)
    fetched = the_hub.nbgrader(name, "fetch")
    assert any(a["assignment_id"] == LAB and a["status"] == "fetched"
               for a in fetched["value"]), fetched
    path = f"/api/contents/{LAB}/{LAB}.ipynb"
    model = the_hub.server(name, "GET", path).json()
    nb = make(manifest.get(LAB), nbformat.from_dict(model["content"]))
    the_hub.server(name, "PUT", path, json={"type": "notebook", "format": "json",
                                            "content": json.loads(nbformat.writes(nb))})
    return the_hub.nbgrader(name, "submit")


def inbound_of(exchange: Path, name: str) -> Path:
    """`name`'s one submission in the exchange (read as root)."""
    (folder,) = (exchange / hub.COURSE_ID / "inbound").glob(f"{name}+{LAB}+*")
    return folder / f"{LAB}.ipynb"


@pytest.fixture(scope="module")
def course(site):
    """Released, handed in by three students, collected, autograded, feedback released."""
    the_hub, exchange, course = site["hub"], site["exchange"], site["course"]
    ex = {"TCLAB_EXCHANGE": str(exchange)}
    hub.make_course(INSTRUCTOR, exchange, instructors=INSTRUCTORS_GROUP)
    as_user(INSTRUCTOR, [str(BIN / "tclab"), "course", "build", str(course)])
    nbgrader_as(INSTRUCTOR, course, "generate_assignment", LAB, **ex)
    nbgrader_as(INSTRUCTOR, course, "release_assignment", LAB, **ex)

    hand_in(the_hub, GOOD, students.solution)
    hand_in(the_hub, STUB, students.stub)
    good = inbound_of(exchange, GOOD)
    peek_at = {"inbound": str(good), "home": f"{pwd.getpwnam(GOOD).pw_dir}/{LAB}/{LAB}.ipynb",
               "submitted": str(course / "submitted" / GOOD / LAB / f"{LAB}.ipynb")}
    hand_in(the_hub, WRONG, lambda lab, nb: wrong(lab, nb, peek_at))

    collected = nbgrader_as(INSTRUCTOR, course, "collect", LAB, **ex)
    grading = as_user(INSTRUCTOR, [str(BIN / "tclab"), "course", "autograde", str(course),
                                   "lab01", "--device", "cpu"], cwd=course, **ex)
    nbgrader_as(INSTRUCTOR, course, "generate_feedback", LAB, **ex)
    nbgrader_as(INSTRUCTOR, course, "release_feedback", LAB, **ex)
    for name in CLASS:
        the_hub.nbgrader(name, "fetch_feedback")
    nbgrader_as(INSTRUCTOR, course, "export", **ex)
    return {**site, "collected": collected, "grading": grading.stdout, "peek_at": peek_at,
            "good": good}


def test_collect_sees_each_submission_under_its_owner(course):
    out = course["collected"]
    assert "cheating attempt" not in out, out
    for name in CLASS:
        assert (course["course"] / "submitted" / name / LAB / f"{LAB}.ipynb").exists(), out


def test_a_student_cannot_read_another_students_work(course):
    """By its exact path: the submission in the exchange and the fetched copy at home."""
    exchange, good = course["exchange"], course["good"]
    home = Path(pwd.getpwnam(GOOD).pw_dir)
    for other in (STUB, WRONG):
        assert can_read(other, good) == "EACCES", f"{other} read {good}"
        assert can_read(other, good.parent) == "EACCES", f"{other} listed {good.parent}"
        assert can_read(other, home) == "EACCES", f"{other} listed {home}"
        assert can_read(other, exchange / hub.COURSE_ID / "inbound") == "EACCES"
    assert can_read(GOOD, good) == "read"
    assert can_read(INSTRUCTOR, good) == "read", "the instructors' group cannot read it"
    root = exchange.stat()
    assert (root.st_uid, oct(root.st_mode & 0o7777)) == (0, oct(0o1777)), \
        "the exchange should be root's, 1777"
    folder = good.parent.stat()
    assert oct(folder.st_mode & 0o777) == oct(0o770), "the submission's folder is not closed"
    assert grp.getgrgid(folder.st_gid).gr_name == INSTRUCTORS_GROUP


def test_nbgrader_default_submission_is_readable_by_any_student(course):
    """The control: the same submission made by nbgrader's own ExchangeSubmit (as every
    course without grader.course.exchange makes it) is read by another student by name,
    and a home left as useradd makes it (0755) is listed."""
    exchange = course["exchange"]
    as_user(GOOD, [sys.executable, "-c", NBGRADER, "submit", LAB, "--course", hub.COURSE_ID,
                   "--ExchangeFactory.submit=nbgrader.exchange.default.submit.ExchangeSubmit"],
            TCLAB_EXCHANGE=str(exchange), JUPYTER_CONFIG_PATH=str(hub.STUDENT_CONFIG))
    (plain,) = [p / f"{LAB}.ipynb" for p in
                (exchange / hub.COURSE_ID / "inbound").glob(f"{GOOD}+{LAB}+*")
                if p != course["good"].parent]
    assert can_read(STUB, plain) == "read", \
        "nbgrader's default submission was not readable: the check above proves nothing"
    home = Path(pwd.getpwnam(GOOD).pw_dir)
    home.chmod(0o755)
    try:
        assert can_read(STUB, home) == "read"
    finally:
        home.chmod(0o700)


def test_grading_one_student_cannot_read_another(course):
    """The wrong student's cell opened the good student's submission (in the exchange and
    in the course) and their home copy while nbgrader ran it as the instructor, who can
    read the first two: the sandbox let it read none."""
    nb = autograded(course["course"], LAB, WRONG)
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.outputs)
    peeks = [line for line in text.splitlines() if line.startswith("PEEK-")]
    assert not [p for p in peeks if p.startswith("PEEK-READ")], \
        "student code read another student's work while graded:\n" + "\n".join(peeks)
    assert len(peeks) == 3, f"the peeking cell did not run:\n{text[:3000]}"
    for label in ("inbound", "submitted"):
        assert can_read(INSTRUCTOR, Path(course["peek_at"][label])) == "read", \
            f"the instructor cannot read the {label} copy: the denial above proves nothing"


def _feedback(course, name: str) -> tuple[list[str], str]:
    """The feedback folders `name` fetched, and the text of the HTML in them, through their
    server."""
    the_hub = course["hub"]
    listing = the_hub.server(name, "GET", f"/api/contents/{LAB}/feedback").json()
    stamps = sorted(item["name"] for item in listing["content"])
    pages = [the_hub.server(name, "GET", f"/api/contents/{LAB}/feedback/{s}/{LAB}.html",
                            params={"type": "file", "format": "text"}).json()["content"]
             for s in stamps]
    # Code is highlighted span by span: the text is what a reader sees.
    return stamps, html.unescape(re.sub(r"<[^>]+>", "", "".join(pages)))


# What each student's own notebook holds and nobody else's does.
OWN_CODE = {GOOD: "(x + y).to(out_ptr", STUB: "raise NotImplementedError()",
            WRONG: "(x - y).to(out_ptr"}


def test_each_student_fetches_only_their_own_feedback(course):
    """One folder each, with their own code and score: with one login for everyone nbgrader
    hands every student every submission's feedback."""
    points = manifest.get(LAB).exercise().points
    scores = {GOOD: points["triton"] + points["cuda"], STUB: 0, WRONG: 0}
    for name in CLASS:
        stamps, text = _feedback(course, name)
        assert len(stamps) == 1, f"{name} fetched {len(stamps)} feedback folders: {stamps}"
        assert OWN_CODE[name] in text, f"{name}'s feedback does not show their own code"
        for other, code in OWN_CODE.items():
            if other != name:
                assert code not in text, f"{name}'s feedback shows {other}'s code {code!r}"
        got = re.findall(rf"{LAB} \(Score: ([\d.]+) / [\d.]+\)", text)
        assert [float(x) for x in got] == [scores[name]], \
            f"{name}'s feedback gives the scores {got}, expected [{scores[name]}]"


def test_export_has_each_student_and_earned_points_only(course):
    points = manifest.get(LAB).exercise().points
    with open(course["course"] / "grades.csv") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f) if r["assignment"] == LAB}
    assert set(rows) == set(CLASS), rows
    want = {GOOD: points["triton"] + points["cuda"], STUB: 0, WRONG: 0}
    got = {name: float(rows[name]["raw_score"]) for name in CLASS}
    assert got == want, f"grades.csv: {got}, expected {want} (perf scores 0 on a CPU)\n" \
        f"tclab course autograde said:\n{course['grading']}"
    most = {float(r["max_score"]) for r in rows.values()}
    assert len(most) == 1 and most.pop() > want[GOOD], "max_score should include perf"


def test_the_students_servers_ran_as_themselves(course):
    the_hub = course["hub"]
    for name in CLASS:
        model = the_hub.api("GET", f"/users/{name}")
        assert model["servers"][""]["ready"], model
    uids = {pwd.getpwnam(n).pw_uid: n for n in CLASS}
    owners = {uids[p.info["uids"].real] for p in processes_of(set(uids))
              if "jupyterhub-singleuser" in " ".join(p.info["cmdline"] or [])}
    assert owners == set(CLASS), owners


