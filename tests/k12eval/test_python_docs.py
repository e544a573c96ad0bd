"""docs/python.md's walk-through runs: its Python blocks, in order, as one notebook."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO

DOC = REPO / "docs" / "python.md"


def python_blocks(text: str) -> list[str]:
    """The fenced ``python`` blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


@pytest.mark.slow
def test_the_walkthrough_runs_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    monkeypatch.chdir(tmp_path)  # the notebook writes into its working folder
    namespace: dict[str, object] = {"__name__": "__walkthrough__"}
    for number, block in enumerate(blocks, start=1):
        try:
            exec(compile(block, f"{DOC.name} block {number}", "exec"), namespace)
        except Exception as exc:
            pytest.fail(f"docs/python.md block {number} failed: {type(exc).__name__}: {exc}")
    # What the walk-through claims it made, checked after it ran.
    assert (tmp_path / "walkthrough" / "report" / "index.html").is_file()
    assert len(namespace["scores"]) == len(namespace["summary"].records) > 0  # type: ignore[attr-defined]
    assert all(r.subject in {"数学", "物理", "化学"} for r in namespace["summary"].records)  # type: ignore[attr-defined]
