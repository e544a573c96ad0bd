"""A ``score --no-cache`` job stopped mid-chunk keeps the model outputs it computed (work-loss audit, item 1).

Its records are written a chunk at a time (every chain of a chunk is scored by the same batched model
calls), so before this a job killed inside its first chunk of up to 256 chains left nothing, and a job
killed again and again never got further. The kill here is an exception raised by the fake encoder at
the call the test names (an event the test controls, never a clock: #37); the real SIGKILL is measured
on the bundled Chinese sample (see the report of the audit).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reasoning_metrics.run_scoring
from reasoning_metrics.run_scoring import score_run as real_score_run
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI
from tests.reasoning_metrics.written_runs import with_models, write_bank, write_run


class Killed(BaseException):
    """The kill: a BaseException, so no ``except Exception`` on the way turns it into a finished job."""


class KilledEncoder(HashEncoder):
    """:class:`HashEncoder` that dies at its ``die_at``-th call (1-based), before computing it."""

    def __init__(self, die_at: int) -> None:
        super().__init__()
        self.die_at = die_at

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if len(self.calls) + 1 == self.die_at:
            raise Killed
        return super().encode(texts)


def _job(run_dir: Path, monkeypatch: pytest.MonkeyPatch, encoder: HashEncoder, nli: RuleNLI) -> Any:
    """``k12eval score RUN --no-cache --batch-size 1`` on the fakes (``with_models`` scores without the cache)."""
    from k12eval.api import score_job

    monkeypatch.setattr(
        reasoning_metrics.run_scoring,
        "score_run",
        with_models(real_score_run, {"encoder": encoder, "nli": nli}),
    )
    return score_job(run_dir, batch_size=1, cache=False)


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("K12EVAL_HOME", str(tmp_path / "home"))
    bank = write_bank(tmp_path / "bank")
    return write_run(tmp_path / "whole", bank), write_run(tmp_path / "stopped", bank)


def test_a_job_killed_mid_chunk_resumes_without_computing_again_and_writes_the_same_file(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    whole, stopped = runs
    encoder, nli = HashEncoder(), RuleNLI()
    _job(whole, monkeypatch, encoder, nli)
    calls = len(encoder.calls)
    assert calls > 4 and nli.calls  # batch size 1: one call per distinct text, so there is a middle to die in

    for die_at in (calls // 3, 2):  # killed twice inside the one chunk, the second time sooner than the first
        with pytest.raises(Killed):
            _job(stopped, monkeypatch, KilledEncoder(die_at), RuleNLI())
        assert not (stopped / "scores.jsonl").exists() or not (stopped / "scores.jsonl").read_text("utf-8")

    resumed, resumed_nli = HashEncoder(), RuleNLI()
    _job(stopped, monkeypatch, resumed, resumed_nli)
    # What the first killed job computed (calls // 3 - 1 texts) is not computed again; the second added one.
    assert len(resumed.calls) == calls - (calls // 3 - 1) - 1
    assert (stopped / "scores.jsonl").read_bytes() == (whole / "scores.jsonl").read_bytes()
    assert (stopped / "scores.json").read_bytes() == (whole / "scores.json").read_bytes()
    assert sorted(p.name for p in stopped.iterdir()) == sorted(p.name for p in whole.iterdir())  # no work file left


def test_a_finished_job_keeps_no_work_file_and_a_resume_computes_nothing(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    whole, _ = runs
    _job(whole, monkeypatch, HashEncoder(), RuleNLI())
    assert not [p.name for p in whole.iterdir() if ".work-" in p.name]
    again = HashEncoder()
    assert _job(whole, monkeypatch, again, RuleNLI()).todo == 0 and again.calls == []


class CountedPRM:
    """A process reward model whose P(correct) of a step is read off its text; records every solution it is
    asked for, and dies when asked for more than ``answers`` solutions in all (``None``: never)."""

    name = "counted-prm"
    batch_size = 1  # one solution per call, as the transformers PRM's own batch size says

    def __init__(self, answers: int | None = None) -> None:
        self.asked: list[tuple[str, Sequence[str]]] = []
        self.answers = answers

    def step_probabilities(self, solutions: Sequence[tuple[str, Sequence[str]]]) -> list[list[float] | None]:
        if self.answers is not None and len(self.asked) + len(solutions) > self.answers:
            raise Killed
        self.asked.extend(solutions)
        return [[(len(step) % 7) / 7 for step in steps] for _, steps in solutions]


def test_a_job_killed_inside_the_process_reward_model_does_not_ask_it_again(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from k12eval.api import score_job

    whole, stopped = runs
    fakes = {"encoder": HashEncoder(), "nli": RuleNLI()}
    monkeypatch.setattr(reasoning_metrics.run_scoring, "score_run", with_models(real_score_run, fakes))
    prm = CountedPRM()
    score_job(whole, batch_size=1, cache=False, prm=prm)
    assert len(prm.asked) == 2  # the run's two chains

    with pytest.raises(Killed):
        score_job(stopped, batch_size=1, cache=False, prm=CountedPRM(answers=1))
    again = CountedPRM()
    score_job(stopped, batch_size=1, cache=False, prm=again)
    assert len(again.asked) == 1  # the chain it had answered is not asked again
    assert (stopped / "scores.jsonl").read_bytes() == (whole / "scores.jsonl").read_bytes()
