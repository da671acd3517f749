"""The student's working copy: `workspace/`, made from the release `exercises/` (`make lab`).

    python -m grader.lab.workspace

Copies every file of each released lab folder that the workspace does not have yet (a lab
released later arrives on the next run; a file the student deleted comes back as released) and
never writes over a file that is there. `workspace/.tclab.json` records which release each file
was copied from (`release.release_id`: a notebook's stamp), so a release that changed since is
named, with where the new one is, while the student's copy stays as it is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from grader.base import paths
from grader.lab.release import count, release_id, shown

RECORD = ".tclab.json"


def _released(release: Path) -> dict[str, list[Path]]:
    """Each lab folder of the release and its files, hidden ones (checkpoints) left out."""
    labs = {}
    for lab in sorted(p for p in release.iterdir() if p.is_dir() and not p.name.startswith(".")):
        labs[lab.name] = sorted(
            f for f in lab.rglob("*")
            if f.is_file() and not any(part.startswith(".") for part in f.relative_to(lab).parts))
    return labs


def sync(release: Path | None = None, workspace: Path | None = None) -> list[str]:
    """Bring `workspace` up to `release` without writing over a file; the lines to print."""
    release, workspace = Path(release or paths.EXERCISES), Path(workspace or paths.WORKSPACE)
    if not release.is_dir():
        raise FileNotFoundError(f"{shown(release)}: no release to copy from")
    first = not workspace.exists()
    record_path = workspace / RECORD
    try:
        record = dict(json.loads(record_path.read_text())["copied"])
    except (OSError, ValueError, KeyError, TypeError):  # none yet, or not ours to read
        record = {}
    labs = _released(release)
    new_labs, new_files, changed = [], [], []
    for lab, files in labs.items():
        if not (workspace / lab).exists():
            new_labs.append(lab)
        for src in files:
            rel = src.relative_to(release).as_posix()
            data = src.read_bytes()
            dest = workspace / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            rid = release_id(data)
            try:
                with open(dest, "xb") as out:  # "x": never over a file that is there
                    out.write(data)
            except FileExistsError:
                if dest.read_bytes() == data:
                    record[rel] = rid  # the student's copy is this release
                elif rel in record and record[rel] != rid:
                    changed.append(f"{shown(dest)}: a new release is at {shown(src)}; your "
                                   f"copy is as you left it (move it aside and run this again "
                                   f"for the new one)")
                continue
            record[rel] = rid
            if lab not in new_labs:
                new_files.append(rel)
    record_path.write_text(json.dumps({"copied": dict(sorted(record.items()))}, indent=1) + "\n")
    where = f"{shown(workspace)}/"
    if first:
        head = f"{where}: made from {shown(release)}/, {count(len(labs), 'lab')}"
    else:
        news = [f"{len(new_labs)} new ({', '.join(new_labs)})"] if new_labs else []
        news += [f"{count(len(new_files), 'new file')} ({', '.join(new_files)})"] \
            if new_files else []
        head = f"{where}: {count(len(labs), 'lab')}, " + (", ".join(news) or "nothing new")
    return [head, *changed]


def main() -> int:
    try:
        lines = sync()
    except FileNotFoundError as exc:
        print(f"workspace: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
