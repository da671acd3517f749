"""A release holds stubs and public tests, and nothing else.

`tclab course leakcheck DIR` scans every file under DIR/release/ for:
- any file but `labNN_<op>/labNN_<op>.ipynb` (nbgrader copies whatever sits beside a source
  notebook: a reference kernel, a solution draft);
- solution text: the distinctive lines of every solution region in labs/ (lines that the
  stubbed notebook does not hold anyway, long enough not to be boilerplate);
- hidden tests: their markers, `suite="hidden"`, `graded=True`, and their distinctive lines;
- reference kernels: the distinctive lines of every file under reference/;
- jupytext metadata, and this course's secrets (grading seed, skip tag).

It also scans every feedback page under DIR/feedback/ (`nbgrader generate_feedback`), which a
student reads, for the hidden tests (their markers, calls and distinctive lines) and the
course's secrets. Solution and reference lines are no leak there: a student's feedback shows
their own code, which may well match them.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from grader.base import paths
from grader.course import build
from grader.lab import manifest, reference, release

MIN_LINE = 16  # shorter lines (`}`, `n = x.numel()`) are boilerplate, not a leak
PATTERNS = {
    "solution marker": ("BEGIN SOLUTION", "END SOLUTION"),
    "hidden-test marker": ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS"),
    "hidden-test call": ('suite="hidden"', "suite='hidden'", "graded=True"),
    "jupytext metadata": ("jupytext",),
}


@dataclass(frozen=True)
class Leak:
    path: Path
    what: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}: {self.detail}"


def _region_lines(source: str, begin: str, end: str) -> list[str]:
    out, inside = [], False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == begin:
            inside = True
        elif stripped == end:
            inside = False
        elif inside:
            out.append(stripped)
    return out


def _notebook_lines(nb) -> set[str]:
    return {line.strip() for cell in nb.cells for line in cell.source.splitlines()}


def _distinctive(lines, allowed: set[str]) -> list[str]:
    return [s for s in dict.fromkeys(lines) if len(s) >= MIN_LINE and s not in allowed]


KINDS = ("solution", "hidden test", "reference")
FEEDBACK_PATTERNS = ("hidden-test marker", "hidden-test call")


def secret_lines(labs=None, reference_dir: Path | None = None,
                 kinds: tuple[str, ...] = KINDS) -> dict[str, str]:
    """{line: where it comes from} for solution, hidden-test and reference text (`kinds`)."""
    found: dict[str, str] = {}
    reference_dir = reference_dir or paths.REFERENCE
    labs = list(labs or manifest.registry().values())
    # What any lab hands out is public: a kernel signature in lab01's stub that a lab02
    # reference also has is no leak.
    allowed = set().union(*(_notebook_lines(release.student_notebook(lab)) for lab in labs))
    for lab in labs:
        source = release.source_notebook(lab)
        origin = str(lab.source.relative_to(paths.ROOT))
        for cell in source.cells:
            regions = [("solution", release.PY_BEGIN, release.PY_END),
                       ("solution", release.C_BEGIN, release.C_END),
                       ("hidden test", release.HIDDEN_BEGIN, release.HIDDEN_END)]
            for kind, begin, end in regions:
                if kind not in kinds:
                    continue
                for line in _distinctive(_region_lines(cell.source, begin, end), allowed):
                    found.setdefault(line, f"{kind} line of {origin}")
    if "reference" not in kinds:
        return found
    # Each lab's reference folder, and the folders the references share (reference/common).
    folders = [reference_dir / lab.id for lab in labs] + reference.shared_folders(reference_dir)
    for ref in folders:
        for path in sorted(p for p in ref.rglob("*") if p.is_file()):
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue
            origin = release.shown(path)
            for line in _distinctive((s.strip() for s in text.splitlines()), allowed):
                found.setdefault(line, f"line of reference file {origin}")
    return found


def course_secrets(root: Path) -> dict[str, str]:
    state = Path(root) / build.STATE
    out = {}
    for name in (build.SECRET_FILE, build.SKIP_TAG_FILE):
        if (state / name).exists():
            out[(state / name).read_text().strip()] = f"this course's {name.replace('_', ' ')}"
    return out


def _texts(path: Path) -> tuple[list[str], list[str]]:
    """(texts to search for patterns, lines to compare) of one release file."""
    raw = path.read_text(errors="replace")
    if path.suffix != ".ipynb":
        return [raw], [s.strip() for s in raw.splitlines()]
    nb = json.loads(raw)
    sources = ["".join(c.get("source", "")) if isinstance(c.get("source"), list)
               else c.get("source", "") for c in nb.get("cells", [])]
    decoded = "\n".join(sources) + "\n" + json.dumps(nb.get("metadata", {})) + "\n" + \
        "\n".join(json.dumps(c.get("metadata", {})) for c in nb.get("cells", []))
    return [raw, decoded], [s.strip() for src in sources for s in src.splitlines()]


def scan(root: Path, labs=None, reference_dir: Path | None = None) -> tuple[list[Leak], int]:
    """Every leak in ROOT/release, and the number of files checked."""
    root = Path(root)
    release_dir = root / "release"
    files = sorted(p for p in release_dir.rglob("*") if p.is_file()) if release_dir.is_dir() \
        else []
    lines = secret_lines(labs, reference_dir)
    secrets = course_secrets(root)
    leaks = []
    for path in files:
        rel = path.relative_to(root)
        parts = path.relative_to(release_dir).parts
        if not (len(parts) == 2 and parts[1] == f"{parts[0]}.ipynb"):
            leaks.append(Leak(rel, "not a release notebook",
                              "a release holds labNN_<op>/labNN_<op>.ipynb only; nbgrader copied "
                              "this from beside the source notebook: move it out of source/"))
        try:
            texts, file_lines = _texts(path)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            leaks.append(Leak(rel, "unreadable", f"{type(exc).__name__}: {exc}"))
            continue
        for what, needles in PATTERNS.items():
            for needle in needles:
                if any(needle in t for t in texts):
                    leaks.append(Leak(rel, what, repr(needle)))
        for needle, what in secrets.items():
            if any(needle in t for t in texts):
                leaks.append(Leak(rel, what, "the value itself"))
        for line in dict.fromkeys(file_lines):
            if line in lines:
                leaks.append(Leak(rel, lines[line], repr(line)))
    return leaks, len(files)


_TAG = re.compile(r"<[^>]*>")


def _page_text(raw: str) -> str:
    """A feedback page as its reader sees it: tags gone (the highlighter wraps every token of
    a code line in one), entities decoded."""
    return html.unescape(_TAG.sub("", raw))


def scan_feedback(root: Path, labs=None) -> tuple[list[Leak], int]:
    """Every leak in the feedback pages under ROOT/feedback, and the number of pages checked:
    hidden-test markers, calls and lines, and this course's secrets."""
    root = Path(root)
    pages = sorted((root / "feedback").rglob("*.html")) if (root / "feedback").is_dir() else []
    lines = secret_lines(labs, kinds=("hidden test",)) if pages else {}
    secrets = course_secrets(root)
    leaks = []
    for path in pages:
        rel = path.relative_to(root)
        raw = path.read_text(errors="replace")
        text = _page_text(raw)
        for what in FEEDBACK_PATTERNS:
            for needle in PATTERNS[what]:
                if needle in text:
                    leaks.append(Leak(rel, what, repr(needle)))
        for needle, what in secrets.items():
            if needle in raw or needle in text:
                leaks.append(Leak(rel, what, "the value itself"))
        for line in dict.fromkeys(s.strip() for s in text.splitlines()):
            if line in lines:
                leaks.append(Leak(rel, lines[line], repr(line)))
    return leaks, len(pages)
