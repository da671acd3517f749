"""`tclab course …`: build an nbgrader course, check a release for leaks, autograde a lab.

    tclab course build DIR [LAB ...] [--course-id ID]
    tclab course leakcheck DIR
    tclab course autograde DIR LAB [--gpus N] [--device auto|cpu|gpu] [--limit SECONDS]
    tclab course autograde DIR LAB --slurm [--partition P] [--gpus-per-task G]
                                           [--max-concurrent K]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from grader.backends import device as dev
from grader.base import paths
from grader.lab import manifest


def inside_checkout(root: Path) -> Path | None:
    """The checkout `root` lies in, unless git ignores it there (or there is no git)."""
    top = paths.ROOT.resolve()
    if not root.resolve().is_relative_to(top) or not (top / ".git").exists() \
            or shutil.which("git") is None:
        return None
    ignored = subprocess.run(["git", "-C", str(top), "check-ignore", "-q", str(root.resolve())],
                             capture_output=True)
    return None if ignored.returncode == 0 else top


def cmd_build(args) -> int:
    from grader.course import build

    root = Path(args.dir)
    try:
        written = build.build(root, manifest.select(args.labs), course_id=args.course_id)
    except build.BuildError as exc:
        print(f"tclab course build: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    inside = inside_checkout(root)
    if inside:
        print(f"note: {root} is inside the project's checkout ({inside}): its gradebook, the "
              "students' submissions and the grading secret would be beside the project's "
              "files; build a course outside it (or in a folder git ignores)", file=sys.stderr)
    labs = [p.parent.name for p in written[1:]]
    # Every step runs inside the course (nbgrader finds its config there): one `cd`, then
    # paths relative to it.
    print(f"\nnext:\n    cd {root}\n" + "\n".join(
        f"    nbgrader generate_assignment {lab} --force" for lab in labs)
        + "\n    tclab course leakcheck .")
    return 0


def cmd_leakcheck(args) -> int:
    from grader.course import leakcheck

    root = Path(args.dir)
    leaks, checked = leakcheck.scan(root)
    if not checked:
        print(f"tclab course leakcheck: nothing to check in {root / 'release'}: run "
              "`nbgrader generate_assignment LAB` in the course first", file=sys.stderr)
        return 2
    fed_back, pages = leakcheck.scan_feedback(root)
    for leak in leaks + fed_back:
        print(f"LEAK {leak}")
    if leaks:
        print(f"{len(leaks)} leak(s) in {checked} file(s) under {root / 'release'}: do not "
              "release this", file=sys.stderr)
    else:
        print(f"release clean: {checked} file(s) under {root / 'release'} hold no solution, "
              "hidden test, reference or course secret")
    if fed_back:
        print(f"{len(fed_back)} leak(s) in {pages} feedback page(s) under {root / 'feedback'}: "
              "do not return this feedback", file=sys.stderr)
    elif pages:
        print(f"feedback clean: {pages} page(s) under {root / 'feedback'} hold no hidden test "
              "or course secret")
    return 1 if leaks or fed_back else 0


def cmd_autograde(args) -> int:
    from rich.console import Console

    from grader.course import autograde, slurm

    console = Console()
    slurm_only = {"--partition": args.partition, "--gpus-per-task": args.gpus_per_task,
                  "--max-concurrent": args.max_concurrent}
    if not args.slurm and any(v is not None for v in slurm_only.values()):
        flags = ", ".join(k for k, v in slurm_only.items() if v is not None)
        console.print(f"[red]tclab course autograde: {flags} only with --slurm[/]")
        return 2
    device = slurm.resolve_device(args.device) if args.slurm else dev.resolve(args.device)
    lab = manifest.get(args.lab)
    if args.gpus is not None and args.slurm:
        console.print(f"--gpus {args.gpus} ignored under --slurm: --gpus-per-task sets the "
                      "GPUs of each task")
    elif args.gpus is not None and device != "gpu":
        console.print(f"--gpus {args.gpus} ignored: grading on the {device}, one worker")
    try:
        if args.slurm:
            outcomes = slurm.autograde_slurm(
                Path(args.dir), lab.id, device, limit=args.limit, partition=args.partition,
                gpus_per_task=args.gpus_per_task or 1, max_concurrent=args.max_concurrent,
                console=console)
        else:
            outcomes = autograde.autograde(Path(args.dir), lab.id, device, gpus=args.gpus,
                                           limit=args.limit, console=console)
    except autograde.AutogradeError as exc:
        console.print(f"[red]tclab course autograde: {exc}[/]")
        return 2
    console.print(autograde.table(lab.id, outcomes, device))
    unboxed = autograde.unsandboxed(outcomes)
    if unboxed:  # the same warning as tclab check's
        console.print(f"WARNING: student code ran WITHOUT the sandbox ({unboxed}): it could "
                      "read the course's files and the other submissions; grade in a container",
                      style="bold red", markup=False)
    results = autograde.write_results(Path(args.dir), lab.id, outcomes, device)
    bad = [o for o in outcomes if o.status != "graded" or o.problems]
    for o in bad:
        notes = [o.note] if o.status != "graded" else o.problems
        for note in notes:
            console.print(f"{o.student}: {o.status}: {note or 'see the log'}; log: {o.log}",
                          markup=False)
    console.print(f"results: {results}", markup=False)
    return 1 if bad else 0


def add_parser(sub) -> None:
    course = sub.add_parser("course", help="nbgrader course: build, leakcheck, autograde",
                            description=__doc__)
    csub = course.add_subparsers(dest="course_command", required=True)
    p = csub.add_parser("build", help="write an nbgrader course directory from labs/")
    p.add_argument("dir", help="the course directory (created; rebuilt in place, secrets kept)")
    p.add_argument("labs", nargs="*", help="lab ids or prefixes (default: all)")
    p.add_argument("--course-id", default="tclab", help="nbgrader course id (default: tclab)")
    p.set_defaults(func=cmd_build)
    p = csub.add_parser("leakcheck", help="fail if DIR/release holds solutions, hidden tests, "
                        "reference code or any file but the notebooks")
    p.add_argument("dir", help="the course directory (tclab course build made it)")
    p.set_defaults(func=cmd_leakcheck)
    p = csub.add_parser("autograde", help="autograde every submission of LAB (scores from "
                        "checks run outside the notebook)")
    p.add_argument("dir", help="the course directory, with nbgrader's submitted/ collected")
    p.add_argument("lab", help="lab id or prefix, e.g. lab01")
    p.add_argument("--gpus", type=int, default=None,
                   help="workers, one per GPU (default: every visible GPU; 1 on the CPU)")
    p.add_argument("--device", choices=dev.CHOICES, default=None,
                   help="where checks run (default: TCLAB_DEVICE or auto)")
    p.add_argument("--limit", type=float, default=1800.0,
                   help="wall-clock seconds per submission (default: 1800)")
    p.add_argument("--slurm", action="store_true",
                   help="one Slurm job array, a task per submission; then import the results")
    p.add_argument("--partition", default=None,
                   help="Slurm partition (default: the cluster's default)")
    p.add_argument("--gpus-per-task", type=int, default=None,
                   help="GPUs per Slurm task when grading on the GPU (default: 1)")
    p.add_argument("--max-concurrent", type=int, default=None,
                   help="at most K Slurm tasks at once (default: as many as Slurm allows)")
    p.set_defaults(func=cmd_autograde)
