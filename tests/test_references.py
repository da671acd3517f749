"""The references' tuning tables (`TUNE` in reference/**/*.py, read by
benchmarks/tune_references.py): every name is a constant of that module, and the value checked
in is one of its candidates, so a sweep starts from what is graded against."""

from __future__ import annotations

import ast

import pytest

from grader import paths

FILES = sorted(p for p in paths.REFERENCE.glob("lab*/*.py") if "TUNE = " in p.read_text())


def module_constants(tree: ast.Module) -> dict:
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:  # not a literal (a path, a dict of torch dtypes)
                pass
    return found


def test_some_references_are_tunable():
    assert len(FILES) >= 10, [p.name for p in FILES]


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name[:5]}-{p.stem}" for p in FILES])
def test_tune_names_constants_and_holds_their_value(path):
    consts = module_constants(ast.parse(path.read_text()))
    tune = consts["TUNE"]
    assert tune, f"{path.name}: TUNE is empty"
    for name, candidates in tune.items():
        assert name in consts, f"{path.name}: TUNE names {name}, which the module never sets"
        assert consts[name] in candidates, (f"{path.name}: {name} = {consts[name]} is not among "
                                            f"its candidates {candidates}")
