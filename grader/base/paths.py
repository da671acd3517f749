"""Where the project's folders are. A checkout is the only supported layout."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("TCLAB_ROOT", Path(__file__).resolve().parents[2]))
LABS = ROOT / "labs"
EXERCISES = ROOT / "exercises"
# The student's working copy of exercises/ (ignored by git): `make lab` opens it, made on first
# use and never overwritten; the default submission where it exists.
WORKSPACE = Path(os.environ.get("TCLAB_WORKSPACE", ROOT / "workspace"))
REFERENCE = ROOT / "reference"
CACHE = Path(os.environ.get("TCLAB_CACHE", Path.home() / ".cache" / "tclab"))
