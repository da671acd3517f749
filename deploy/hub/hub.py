"""A JupyterHub for a course on one machine, as root: one Unix account per person.

    python deploy/hub/hub.py setup                     # proxy, groups, exchange
    python deploy/hub/hub.py add-user ada --instructor # an account (home 0700)
    python deploy/hub/hub.py add-user bob              # one per student
    python deploy/hub/hub.py course ada                # the course's folders in the exchange
    jupyterhub -f deploy/hub/jupyterhub_config.py      # port 8000

JupyterHub comes from PyPI (the project's `dev` extra), configurable-http-proxy from npm into
deploy/hub/node/ (ignored by git). JupyterHub's LocalProcessSpawner runs each person's
single-user server as their own account, so nbgrader files each submission under its
login, and a student's files are the student's: homes are 0700, and submissions are
readable only by their owner and the instructors' group (grader/course/exchange.py). The
Python environment must be readable by every account (install it under /opt or /srv, not
under /root): `setup` says which folder is in the way.

The exchange (/srv/nbgrader/exchange, or TCLAB_EXCHANGE) belongs to root, mode 1777 as
nbgrader wants it, sticky so nobody deletes another's folder. `course` makes the course's
folder in it for its instructor, the inbound folder setgid to the instructors' group.
"""

from __future__ import annotations

import argparse
import grp
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROXY_PACKAGE = "configurable-http-proxy@5"
PROXY_PREFIX = HERE / "node"
PROXY = PROXY_PREFIX / "node_modules" / ".bin" / "configurable-http-proxy"
STUDENT_CONFIG = HERE / "student"  # the nbgrader config every single-user server reads
EXCHANGE = Path(os.environ.get("TCLAB_EXCHANGE", "/srv/nbgrader/exchange"))
COURSE_ID = "tclab"
STUDENTS, INSTRUCTORS = "tclab-students", "tclab-instructors"


def run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def install_proxy() -> Path:
    """configurable-http-proxy in deploy/hub/node/, once."""
    if not PROXY.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("npm not found: install Node.js (20 or later) with npm")
        subprocess.run([npm, "install", "--prefix", str(PROXY_PREFIX), "--no-audit",
                        "--no-fund", "--loglevel=error", PROXY_PACKAGE], check=True)
    return PROXY


def blocked_folders(path: Path) -> list[Path]:
    """The folders above `path` that an account other than their owner cannot enter."""
    return [p for p in Path(path).resolve().parents if not os.stat(p).st_mode & 0o001]


def make_groups(students: str = STUDENTS, instructors: str = INSTRUCTORS) -> None:
    for group in (students, instructors):
        run("groupadd", "-f", group)


def make_exchange(root: Path = EXCHANGE) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    os.chown(root, 0, 0)
    os.chmod(root, 0o1777)
    return root


def add_user(name: str, group: str) -> Path:
    """A login with its own group, in `group`, its home closed to everyone else."""
    run("useradd", "--create-home", "--user-group", "--groups", group,
        "--shell", "/bin/bash", name)
    home = Path(pwd.getpwnam(name).pw_dir)
    os.chmod(home, 0o700)  # useradd's default follows UMASK: 0755, every home readable
    return home


def make_course(instructor: str, root: Path = EXCHANGE, course_id: str = COURSE_ID,
                instructors: str = INSTRUCTORS) -> Path:
    """ROOT/COURSE owned by the instructor; inbound/ -wx for students, setgid to the
    instructors' group so that each submission is the group's (nbgrader's own default is
    the releasing instructor's login group)."""
    uid, gid = pwd.getpwnam(instructor).pw_uid, grp.getgrnam(instructors).gr_gid
    course = root / course_id
    for folder, mode in ((course, 0o755), (course / "outbound", 0o755),
                         (course / "inbound", 0o2773)):
        folder.mkdir(exist_ok=True)
        os.chown(folder, uid, gid)
        os.chmod(folder, mode)
    return course


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hub.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("setup", help="the proxy, the two groups and the exchange")
    add = sub.add_parser("add-user", help="a Unix account for a student or an instructor")
    add.add_argument("name")
    add.add_argument("--instructor", action="store_true")
    course = sub.add_parser("course", help="the course's folders in the exchange")
    course.add_argument("instructor")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("run as root: it makes accounts and the exchange")
    if args.command == "setup":
        print("proxy:", install_proxy())
        make_groups()
        print("exchange:", make_exchange())
        for folder in blocked_folders(Path(sys.executable)):
            print(f"WARNING: {folder} is closed to other accounts, so is this Python "
                  f"({sys.executable}): no single-user server can start")
    elif args.command == "add-user":
        print(add_user(args.name, INSTRUCTORS if args.instructor else STUDENTS))
    else:
        print(make_course(args.instructor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
