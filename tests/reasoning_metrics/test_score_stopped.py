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
    import reasoning_metrics.run_scoring
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
