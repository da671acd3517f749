"""A lab is its folder: `grader/` names no lab id, exercise, op, kernel, launcher, cell or
lab-specific shape key. If one of them is needed in grader/, lab.toml is missing a field."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import torch

from grader.lab import manifest

GRADER = Path(manifest.__file__).parents[1]  # grader/
# Short dims (`n`, `m`, `k`) are also everyday variable names: only longer names are lab words.
MIN_LENGTH = 3


def lab_words() -> dict[str, str]:
    words = {}
    for lab in manifest.registry().values():
        words[lab.id] = f"lab id of {lab.id}"
        words[lab.id[6:]] = f"op of {lab.id}"
        for ex in lab.exercises:
            words[ex.name] = f"exercise of {lab.id}"
            for spec in ex.impls.values():
                words[spec.launcher] = f"launcher of {ex.key}"
                words[spec.kernel] = f"kernel of {ex.key}"
                for cell in spec.cells:
                    words[cell] = f"cell of {ex.key}"
            for dim in ex.dim_names:
                words[dim] = f"shape key of {ex.key}"
    # An op that is also torch's own name (relu, sigmoid, clip) is library vocabulary.
    return {w: why for w, why in words.items()
            if len(w) >= MIN_LENGTH and not hasattr(torch, w) and not hasattr(torch.Tensor, w)}


def words_in(path: Path) -> set[str]:
    """Every identifier, and every word inside strings and comments, of one source file."""
    found = set()
    text = path.read_text()
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for tok in tokens:
        if tok.type == tokenize.NAME:
            found.add(tok.string)
        elif tok.type in (tokenize.STRING, tokenize.COMMENT):
            found.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", tok.string))
    return found


def test_grader_names_no_lab():
    words = lab_words()
    hits = [f"{path.relative_to(GRADER.parent)}: {word} ({words[word]})"
            for path in sorted(GRADER.rglob("*.py"))
            for word in sorted(words_in(path) & words.keys())]
    assert not hits, "lab knowledge in grader/ (move it to lab.toml):\n" + "\n".join(hits)


def test_the_check_can_fail(tmp_path):
    """The negative control of the test above: a planted lab word is found."""
    planted = tmp_path / "planted.py"
    planted.write_text('SHAPE_KEY = "n_rows"  # softmax_kernel\n')
    assert {"n_rows", "softmax_kernel"} <= words_in(planted)
    assert {"n_rows", "softmax_kernel"} <= lab_words().keys()
