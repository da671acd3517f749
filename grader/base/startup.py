"""What the grader's own processes do first: the `tclab` command and an autograde task."""

from __future__ import annotations

import sys


def skip_iri_grammar() -> None:
    """nbformat imports jsonschema, and jsonschema imports `rfc3987_syntax` where it is
    installed (JupyterLab's jupyter-events pulls it in) for its "iri" string format. That
    import builds an Earley parser of RFC 3987: 2.5 s of CPU at every process start on a
    2-core machine, before a notebook is read. Notebook schemas use no "iri" format, so this
    process marks the module absent and jsonschema goes without that one format check
    (jsonschema's own fallback where the package is not installed)."""
    sys.modules.setdefault("rfc3987_syntax", None)
