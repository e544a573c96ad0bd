"""The detectors on scored chains: ROSCOE's parts read off the scorer equal the baseline's, one rule applies."""

from __future__ import annotations

import pytest

from reasoning_metrics.records import Chain
from reasoning_metrics.scoring import score_chains
from reasoning_metrics.verify.aggregate_rule import assess_one
from reasoning_metrics.verify.rules.baseline import roscoe_scores
from reasoning_metrics.verify.scored import ScoredSolution, assess_scored, roscoe_detail
from tests.reasoning_metrics.fakes import HashEncoder, RuleNLI

SOURCE = "Each box holds 12 pens.\nTom buys 3 boxes."
STEPS = ["Each box holds 12 pens.", "Tom buys 3 boxes.", "So he has 12 × 3 = 38 pens.", "The answer is 38."]


def _scored(nli: object = "none") -> list:
    chain = Chain("c", SOURCE, STEPS, lang="en")
    return score_chains([chain], ["faithfulness_step", "repetition_step"], HashEncoder(), nli, cache=False)


def test_roscoe_detail_equals_the_meta_evaluation_baseline_on_the_same_encoder() -> None:
    (scores,) = _scored()
    detail = roscoe_detail(scores)
    (baseline,) = roscoe_scores([ScoredSolution("c", SOURCE, tuple(STEPS))], HashEncoder())
    assert detail is not None
    for ours, theirs in zip(detail.steps, baseline.steps, strict=True):
        assert ours.source_similarity == pytest.approx(theirs.source_similarity, abs=1e-6)
        assert ours.repeat_similarity == pytest.approx(theirs.repeat_similarity, abs=1e-6)
    assert detail.scores["faithfulness_step"] == pytest.approx(baseline.scores["faithfulness_step"], abs=1e-6)


def test_no_encoder_means_no_roscoe_detail() -> None:
    (scores,) = score_chains([Chain("c", SOURCE, STEPS, lang="en")], ["faithfulness_step"], "none", "none", cache=False)
    assert roscoe_detail(scores) is None
    (assessment,) = assess_scored([scores], {"c": SOURCE}, {})
    assert "roscoe" in assessment.unavailable and "roscoe" not in assessment.detectors


def test_assessment_is_the_aggregate_rule_on_the_scored_steps() -> None:
    (scores,) = _scored()
    (assessment,) = assess_scored([scores], {"c": SOURCE}, {"en": "no NLI model for en text"})
    expected = assess_one(
        ScoredSolution("c", SOURCE, tuple(STEPS)),
        roscoe=roscoe_detail(scores),
        unavailable=dict(assessment.unavailable),
    )
    assert assessment == expected
    messages = [f.message for f in assessment.steps[2].flags]
    assert messages[0] == "12 * 3 = 38 does not hold (36 vs 38)"
    assert assessment.first_suspect == 2
    assert assessment.unavailable["contradiction"] == "no NLI model for en text"
    assert all(step.contradiction is None for step in assessment.steps)


def test_contradictions_use_the_premises_and_every_earlier_step() -> None:
    (scores,) = _scored()
    nli = RuleNLI()
    (assessment,) = assess_scored([scores], {"c": SOURCE}, {"en": nli}, premises={"c": "Tom buys boxes."})
    pairs = [pair for call in nli.calls for pair in call]
    expected = {("Tom buys boxes.", s) for s in STEPS} | {(STEPS[j], STEPS[i]) for i in range(4) for j in range(i)}
    assert set(pairs) == expected and len(pairs) == len(expected)  # each distinct pair once
    assert "contradiction" in assessment.detectors
    # RuleNLI: 0.9 when the texts end in different numbers; step 2 ends in 38, steps 0-1 in 12 and 3
    assert assessment.steps[2].contradiction == pytest.approx(0.9)
