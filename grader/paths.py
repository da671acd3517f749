"""Where the project's folders are. A checkout is the only supported layout."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("TCLAB_ROOT", Path(__file__).resolve().parent.parent))
LABS = ROOT / "labs"
EXERCISES = ROOT / "exercises"
REFERENCE = ROOT / "reference"
CACHE = Path(os.environ.get("TCLAB_CACHE", Path.home() / ".cache" / "tclab"))
