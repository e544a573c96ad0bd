"""The examples in the packages' docstrings run, so they stay true (the suite's doctests)."""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.conftest import REPO

PACKAGES = ("kg", "runners", "reasoning_metrics", "reports", "k12eval")


def _modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(REPO).with_suffix("").parts
                found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def test_there_are_examples_to_run() -> None:
    assert len(_modules_with_examples()) >= 2


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has '>>> ' but no example doctest could find"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} fail"
