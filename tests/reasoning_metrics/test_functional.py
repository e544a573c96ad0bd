"""Each ROSCOE formula on small matrices whose value is worked out by hand in the comments."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reasoning_metrics import functional as F

# 3 hypothesis steps, 2 source sentences, 2 reference steps (values are cos*).
SIM_HS = np.array([[0.9, 0.6], [0.7, 0.8], [0.5, 0.55]])
# r-align(h -> s) = [0.9, 0.8, 0.55], mean 0.75; r-align(s -> h) = column maxima [0.9, 0.8], mean 0.85
SIM_HR = np.array([[0.95, 0.6], [0.7, 0.65], [0.5, 0.6]])
# r-align(h -> r) = [0.95, 0.7, 0.6], mean 0.75; r-align(r -> h) = column maxima [0.95, 0.65]
SIM_RS = np.array([[0.85, 0.5], [0.6, 0.7]])
# r-align(r -> s) = [0.85, 0.7], mean 0.775


def test_faithfulness_step() -> None:
    assert F.faithfulness_step(SIM_HS) == pytest.approx(0.75)  # (0.9 + 0.8 + 0.55) / 3


def test_faithfulness_token_averages_steps_and_tokens_together() -> None:
    tokens = np.array([0.6, 0.7, 0.8, 0.9, 1.0])
    # (0.9 + 0.8 + 0.55 + 0.6 + 0.7 + 0.8 + 0.9 + 1.0) / 8 = 6.25 / 8, not the mean of the two means
    assert F.faithfulness_token(SIM_HS, tokens) == pytest.approx(0.78125)
    assert F.faithfulness_token(SIM_HS, np.zeros(0)) == pytest.approx(0.75)


def test_info_step() -> None:
    assert F.info_step(SIM_HS) == pytest.approx(0.8)  # (0.75 + 0.85) / 2


def test_chain_scores_are_scaled_twice() -> None:
    assert F.info_chain(0.8) == pytest.approx(0.9)  # (1 + 0.8) / 2
    assert F.semantic_coverage_chain(0.6) == pytest.approx(0.8)
    assert F.info_chain(0.0) == pytest.approx(0.5)  # the floor of the range


def test_reasoning_alignment_and_redundancy() -> None:
    assert F.reasoning_alignment(SIM_HR) == pytest.approx(0.75)  # (0.95 + 0.7 + 0.6) / 3
    assert F.redundancy(SIM_HR) == pytest.approx(0.6)


def test_hallucination() -> None:
    # (1 - [0.95, 0.7, 0.6]) * (1 - [0.9, 0.8, 0.55]) = [0.005, 0.06, 0.18]; 1 - 0.18
    assert F.hallucination(SIM_HR, SIM_HS) == pytest.approx(0.82)


def test_missing_step_and_commonsense() -> None:
    assert F.missing_step(SIM_HR) == pytest.approx(0.65)  # min of [0.95, 0.65]
    # (1 - [0.95, 0.65]) * (1 - [0.85, 0.7]) = [0.0075, 0.105]; 1 - 0.105
    assert F.commonsense(SIM_HR, SIM_RS) == pytest.approx(0.895)


def test_semantic_coverage_step() -> None:
    assert F.semantic_coverage_step(SIM_RS, SIM_HS) == pytest.approx(0.975)  # 1 - |0.775 - 0.75|


def test_repetition_step_is_halved_but_one_step_scores_one() -> None:
    sim_hh = np.array([[1.0, 0.7, 0.4], [0.7, 1.0, 0.9], [0.4, 0.9, 1.0]])
    assert F.repetition_step(sim_hh) == pytest.approx(0.05)  # (1 - 0.9) / 2
    assert F.repetition_step(np.array([[1.0]])) == 1.0


def test_repetition_token_looks_only_at_earlier_steps() -> None:
    m = np.array([[1.0, 0.6, 0.3], [0.8, 1.0, 0.5], [0.7, 0.75, 1.0]])
    # pairs (i, j < i): 0.8, 0.7, 0.75 -> 1 - 0.8; the upper triangle (0.6, 0.3, 0.5) is not looked at
    assert F.repetition_token(m) == pytest.approx(0.2)
    # step 1 has no tokens: its row and column are NaN, leaving only (2, 0) = 0.7
    m[1, :] = m[:, 1] = np.nan
    assert F.repetition_token(m) == pytest.approx(0.3)
    assert F.repetition_token(np.array([[1.0]])) == 1.0


def test_source_consistency_both_ways() -> None:
    contra = np.array([[0.1, 0.2], [0.05, 0.7], [0.3, 0.0]])
    assert F.source_consistency(contra) == pytest.approx(0.3)
    assert F.source_contradiction_max(contra) == pytest.approx(0.7)


def test_self_consistency_includes_a_step_against_itself() -> None:
    contra = np.array([[0.6, 0.1], [0.2, 0.05]])
    assert F.self_consistency(contra) == pytest.approx(0.4)  # the diagonal 0.6 counts


def test_perplexity_scores() -> None:
    steps = np.array([[10.0, 2.0], [20.0, 3.0]])
    assert F.perplexity_step(steps) == pytest.approx(1 / 16)  # (10*2 + 20*3) / 5 = 16
    assert F.perplexity_step_max(steps) == pytest.approx(1 / 20)
    assert F.perplexity_chain(8.0) == pytest.approx(0.125)


def test_grammar_scores() -> None:
    probs = np.array([0.9, 0.5, 0.7])
    assert F.grammar_step(probs) == pytest.approx(0.7)
    assert F.grammar_step_max(probs) == pytest.approx(0.5)


def test_cos_star_ignores_length_and_maps_to_unit_interval() -> None:
    a = np.array([[1.0, 0.0], [0.0, 2.0]])
    b = np.array([[3.0, 0.0], [-1.0, 0.0], [1.0, 1.0]])
    half = (1 + 1 / math.sqrt(2)) / 2
    expected = np.array([[1.0, 0.0, half], [0.5, 0.5, half]])
    np.testing.assert_allclose(F.cos_star(a, b), expected)


def test_cos_star_equals_the_squared_norm_scaling_of_the_reference() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 8)), rng.normal(size=(3, 8))
    a2, b2 = a / (a**2).sum(1, keepdims=True), b / (b**2).sum(1, keepdims=True)
    np.testing.assert_allclose(F.cos_star(a2, b2), F.cos_star(a, b))


def test_token_alignment() -> None:
    h = np.array([[1.0, 0.0], [0.0, 1.0]])
    s = np.array([[1.0, 0.0], [1.0, 1.0]])
    half = (1 + 1 / math.sqrt(2)) / 2
    np.testing.assert_allclose(F.token_alignment(h, s), [1.0, half])


def test_step_token_alignment_by_hand() -> None:
    tokens = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # step 0: t0 t1; step 1: none; step 2: t2
    half = (1 + 1 / math.sqrt(2)) / 2
    m = F.step_token_alignment(tokens, [2, 0, 1])
    assert m[0, 0] == pytest.approx(1.0)  # each token is its own best match
    assert m[0, 2] == pytest.approx(half)  # mean(cos*(t0, t2), cos*(t1, t2))
    assert m[2, 0] == pytest.approx(half)  # t2's best in step 0: both are at 45 degrees
    assert m[2, 2] == pytest.approx(1.0)
    assert np.isnan(m[1]).all() and np.isnan(m[:, 1]).all()


def test_step_token_alignment_is_asymmetric() -> None:
    # step 0 = [x], step 1 = [x, y]: x finds itself in step 1 (1.0), but y finds only x in step 0 (0.5)
    tokens = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    m = F.step_token_alignment(tokens, [1, 2])
    assert m[0, 1] == pytest.approx(1.0)
    assert m[1, 0] == pytest.approx(0.75)  # mean(1.0, 0.5)
