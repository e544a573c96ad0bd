"""Answers kept as they finish: a streaming backend's answers are written one by one, and no signal drops one (#33 item 1).

The signals come from the test itself, at moments it chooses (while an answer is being written,
while the backend is still generating), never from a race with a process's speed (#37).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends import ENTRY_POINT_GROUP
from runners.backends.base import GenerationRequest, GenerationResult
from runners.options import RunOptions
from runners.run import run_questions
from runners.stopping import Terminated, shielded
from runners.store import RunStore
from runners.summary import SUMMARY_FILE, RunResults
from tests._runs import question, write_bank
from tests.scripted import ScriptedBackend

QUESTIONS = [
    question(f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：下列函数中是一次函数的是") for i in range(8)
]


class StreamingBackend(ScriptedBackend):
    """Streams its answers in reverse order (the order they "finish"), handing each over shielded.

    ``signal_at``: after handing over that many answers, the test's signal is sent while the next
    answer is still "being generated" (outside the shield); ``loops``: ids answered as looping.
    """

    def __init__(self, *, signal_at: int | None = None, signum: int = signal.SIGTERM, loops: Sequence[str] = ()):
        super().__init__("答案是 A")
        self.signal_at = signal_at
        self.signum = signum
        self.loops = set(loops)
        self.handed: list[str] = []
        self.batch_size = 4

    def generate_stream(self, requests: Sequence[GenerationRequest]) -> Iterator[GenerationResult]:
        self.batches.append(len(requests))
        for request in reversed(requests):
            if self.signal_at is not None and len(self.handed) == self.signal_at:
                os.kill(os.getpid(), self.signum)  # the run is waiting for the model: nothing in hand is lost
            reason = "loop" if request.id in self.loops else "stop"
            with shielded():
                self.handed.append(request.id)
                yield GenerationResult(request.id, texts=["答案是 A"], finish_reasons=[reason], completion_tokens=5)


def _options(bank: Path, out: Path, backend: Any) -> RunOptions:
    return RunOptions(data=bank, model="streaming", out=out, backend="streaming", backend_instance=backend)


def _summary(out: Path) -> RunResults:
    return RunResults.model_validate_json((out / SUMMARY_FILE).read_text(encoding="utf-8"))


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", QUESTIONS)


def test_all_questions_go_to_a_streaming_backend_at_once_and_loops_are_counted(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    backend = StreamingBackend(loops=["q2", "q5"])
    summary = run_questions(_options(bank, out, backend), command=["k12eval", "run"])
    assert backend.batches == [8] and summary.new == 8
    lines = [r.question_id for r in RunStore(out).iter_records()]
    assert lines == [f"q{i}" for i in reversed(range(8))]  # written in the order they finished
    results = _summary(out)
    assert results.loops == 2 and results.finish_reasons == {"loop": 2, "stop": 6}
    looped = {r.question_id: r for r in RunStore(out).records() if r.finish_reason == "loop"}
    assert set(looped) == {"q2", "q5"}
    assert RunStore(out).read_header().batch["streamed"] is True


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_an_answer_is_written_waits_for_the_write(
    signum: int, bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    real_append = RunStore.append
    writes: list[int] = []

    def append_then_signal(self: RunStore, records: Any) -> int:
        records = list(records)
        if len(writes) == 2:
            os.kill(os.getpid(), signum)  # arrives in the middle of the third answer's write
        written = real_append(self, records)
        writes.append(written)
        return written

    monkeypatch.setattr(RunStore, "append", append_then_signal)
    backend = StreamingBackend()
    with pytest.raises(Terminated if signum == signal.SIGTERM else KeyboardInterrupt):
        run_questions(_options(bank, out, backend), command=["k12eval", "run"])
    kept = [r.question_id for r in RunStore(out).records()]
    assert kept == backend.handed == ["q7", "q6", "q5"]  # every answer handed over is on disk, the third too
    assert _summary(out).session.status == "interrupted" and _summary(out).pending == 5


def test_a_signal_while_the_model_generates_keeps_every_finished_answer_and_resumes(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = StreamingBackend(signal_at=3)
    with pytest.raises(Terminated):
        run_questions(_options(bank, out, first), command=["k12eval", "run"])
    assert [r.question_id for r in RunStore(out).records()] == first.handed == ["q7", "q6", "q5"]
    again = StreamingBackend()
    summary = run_questions(_options(bank, out, again), command=["k12eval", "run"])
    assert again.batches == [5] and summary.resumed == 3 and summary.new == 5
    ids = [r.question_id for r in RunStore(out).iter_records()]
    assert sorted(ids) == sorted(q.id for q in QUESTIONS)  # each once: no duplicate, none missing


class _LoopingPlugin(StreamingBackend):
    """The streaming backend as an installed package's backend: answers q2 and q5 as loops."""

    def __init__(self, model: str = "streaming") -> None:
        super().__init__(loops=["q2", "q5"])


class _EntryPoint:
    name, group = "streaming", ENTRY_POINT_GROUP

    def load(self) -> type:
        return _LoopingPlugin


def test_the_command_says_how_many_answers_the_loop_guard_stopped(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "importlib.metadata.entry_points", lambda group=None: [_EntryPoint()] if group == ENTRY_POINT_GROUP else []
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(bank), "-m", "streaming", "-b", "streaming", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 answer(s) stopped repeating themselves" in " ".join(result.output.split())
    assert _summary(out).loops == 2
