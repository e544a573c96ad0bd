"""The model-backed detectors with stand-in models: ROSCOE baseline, NLI contradiction, LLM judge."""

from __future__ import annotations

import math

import pytest

from reasoning_metrics.verify.contradiction import first_contradiction, step_contradictions
from reasoning_metrics.verify.judge import (
    judge_solutions,
    load_template,
    parse_first_error,
    prm_step_scores,
    render_prompt,
)
from reasoning_metrics.verify.roscoe_adapter import ChainInput, roscoe_baseline, split_sentences
from runners.backends.base import GenerationRequest, LoglikelihoodRequest
from tests.verify.fakes import ScriptedBackend, TableEncoder, WordNLI

R = math.sqrt(0.5)


def test_roscoe_baseline_matches_hand_computed_values() -> None:
    # source sentences A=(1,0), B=(0,1); steps h1=(1,0), h2=(1,1)/sqrt2.  cos* = (1+cos)/2.
    # r-align(h -> s) = [1, (1+R)/2]; r-align(s -> h) = [1, (1+R)/2]; cos*(h2, h1) = (1+R)/2.
    encoder = TableEncoder({"A.": [1, 0], "B.": [0, 1], "h1": [1, 0], "h2": [R, R]})
    (detail,) = roscoe_baseline([ChainInput("A. B.", ["h1", "h2"])], encoder)
    half = (1 + R) / 2
    assert detail.step_alignment == pytest.approx([1.0, half])
    assert detail.scores["faithfulness"] == pytest.approx((1 + half) / 2)
    assert detail.scores["informativeness_step"] == pytest.approx((1 + half) / 2)
    assert detail.scores["repetition_step"] == pytest.approx((1 - half) / 2)
    assert detail.step_repetition == pytest.approx([0.0, half])
    assert detail.scores["discourse_representation"] is None
    assert "discourse_representation" in detail.unavailable


def test_roscoe_one_step_chain_and_nli_scores() -> None:
    encoder = TableEncoder({"A.": [1, 0], "B.": [0, 1], "it is not so": [0, 1]})
    nli = WordNLI(high=0.8, low=0.1)
    (detail,) = roscoe_baseline([ChainInput("A. B.", ["it is not so"])], encoder, nli)
    assert detail.scores["repetition_step"] == 1.0  # ROSCOE's value for a one-step chain
    assert detail.scores["discourse_representation"] == pytest.approx(1 - 0.8)
    assert detail.scores["coherence_step_vs_step"] == pytest.approx(1 - 0.8)  # i = j included


def test_split_sentences_in_both_languages() -> None:
    assert split_sentences("Tom has 3. He buys 2! How many?") == ["Tom has 3.", "He buys 2!", "How many?"]
    assert split_sentences("小明有3个。又买了2个，一共几个？") == ["小明有3个。", "又买了2个，一共几个？"]


def test_step_contradictions_use_question_and_earlier_steps_only() -> None:
    nli = WordNLI()
    scores = step_contradictions([("He has 3. He buys 2.", ["So 5.", "It is not 5.", "Done."])], nli)
    assert scores == [[pytest.approx(0.05), pytest.approx(0.9), pytest.approx(0.05)]]
    assert first_contradiction(scores[0]) == 1
    # premises: 2 question sentences for step 0, +1 step for step 1, +2 for step 2
    assert len(nli.pairs) == 2 + 3 + 4
    assert ("It is not 5.", "Done.") in nli.pairs and ("Done.", "It is not 5.") not in nli.pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The earliest error is in step 3. \\boxed{3}", 2),
        ("All steps are correct. \\boxed{-1}", -1),
        ("\\boxed{0}", -1),
        ("Step 1 is fine. Step 2 contains an error: 5 × 3 is 15, not 18.", 1),
        ("The first mistake is in Step 4, and step 5 repeats it.", 3),
        ("第3步出现错误，应为12。", 2),
        ("错误出现在第二步。", 1),
        ("所有步骤都正确。", -1),
        ("Final answer: 2", 1),
        ("\\boxed{Step 2}", 1),
        ("\\boxed{9}", None),  # out of range
        ("I am not sure.", None),
    ],
)
def test_parse_first_error(text: str, expected: int | None) -> None:
    assert parse_first_error(text, n_steps=5) == expected


def test_parse_first_error_zero_based_template() -> None:
    assert parse_first_error("\\boxed{0}", n_steps=3, index_base=0) == 0
    assert parse_first_error("\\boxed{-1}", n_steps=3, index_base=0) == -1


def test_judge_sends_one_batch_in_the_problem_language_and_reads_answers() -> None:
    def answer(request: GenerationRequest) -> str:
        user = request.prompt[-1]["content"]  # type: ignore[index]
        return "\\boxed{2}" if "第2步" in user else "No error here, \\boxed{-1}"

    backend = ScriptedBackend(answer=answer)
    verdicts = judge_solutions([("小明有3个苹果。", ["3+1=4", "4×2=9"]), ("Tom has 3.", ["3 + 1 = 4"])], backend)
    assert backend.batches == [2]
    assert [v.first_error for v in verdicts] == [1, -1]


def test_prompt_keeps_braces_and_numbers_steps_from_one() -> None:
    messages = render_prompt("Find {x}.", ["x = {1}", "done"], load_template("en"))
    user = messages[-1]["content"]
    assert "Find {x}." in user and "Step 1: x = {1}" in user and "Step 2: done" in user


def test_prm_step_scores_normalise_good_against_bad() -> None:
    def score(request: LoglikelihoodRequest) -> list[float]:
        wrong = str(request.prompt).rstrip().endswith("Is the last step correct? Answer:") and "9" in request.prompt
        return [math.log(0.2), math.log(0.6)] if wrong else [math.log(0.9), math.log(0.1)]

    backend = ScriptedBackend(score=score)
    (scores,) = prm_step_scores([("Q", ["2+2=4", "4+5=9"])], backend)
    assert scores == [pytest.approx(0.9), pytest.approx(0.25)]
    assert backend.batches == [2]
