"""The model-backed detectors with stand-in models: ROSCOE baseline, NLI contradiction, LLM judge."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import pytest

from reasoning_metrics.records import Chain
from reasoning_metrics.scoring import score_chains
from reasoning_metrics.verify.judge_log import judge_resumably
from reasoning_metrics.verify.rules.baseline import BASELINE_METRICS, needs_nli, roscoe_scores
from reasoning_metrics.verify.rules.contradiction import first_contradiction, step_contradictions
from reasoning_metrics.verify.rules.judge import (
    judge_solutions,
    load_template,
    parse_first_error,
    prm_step_scores,
    render_prompt,
)
from runners.backends.base import GenerationRequest, LoglikelihoodRequest
from tests.reasoning_metrics.verify.fakes import TableEncoder, WordNLI
from tests.scripted import ScriptedBackend

R = math.sqrt(0.5)


@dataclass(frozen=True)
class Sol:
    id: str
    problem: str
    steps: tuple[str, ...]


def test_roscoe_baseline_matches_hand_computed_values() -> None:
    # source sentences "Ann runs."=(1,0), "Bob sits."=(0,1); steps h1=(1,0), h2=(1,1)/sqrt2.  cos* = (1+cos)/2.
    # r-align(h -> s) = [1, (1+R)/2]; r-align(s -> h) = [1, (1+R)/2]; cos*(h2, h1) = (1+R)/2.
    encoder = TableEncoder({"Ann runs.": [1, 0], "Bob sits.": [0, 1], "h1": [1, 0], "h2": [R, R]}, default=[1, 1])
    (scored,) = roscoe_scores([Sol("s", "Ann runs. Bob sits.", ("h1", "h2"))], encoder)
    half = (1 + R) / 2
    assert [s.source_similarity for s in scored.steps] == pytest.approx([1.0, half])
    assert scored.scores["faithfulness_step"] == pytest.approx((1 + half) / 2)
    assert scored.scores["info_step"] == pytest.approx((1 + half) / 2)
    assert scored.scores["repetition_step"] == pytest.approx((1 - half) / 2)
    assert [s.repeat_similarity for s in scored.steps] == [None, pytest.approx(half)]
    assert "source_consistency" not in scored.scores  # not asked for without an NLI model


def test_roscoe_baseline_is_what_k12eval_score_computes() -> None:
    encoder = TableEncoder({"Ann runs.": [1, 0], "Bob sits.": [0, 1], "h1": [1, 0], "h2": [R, R]}, default=[2, 1])
    (baseline,) = roscoe_scores([Sol("s", "Ann runs. Bob sits.", ("h1", "h2"))], encoder)
    chain = Chain("s", "Ann runs. Bob sits.", ["h1", "h2"])
    (direct,) = score_chains([chain], [m for m in BASELINE_METRICS if not needs_nli(m)], encoder, "none", cache=False)
    assert baseline == direct
    assert set(baseline.scores) == {"faithfulness_step", "info_step", "info_chain", "repetition_step"}


def test_roscoe_baseline_keeps_blank_steps_in_place() -> None:
    table: dict[str, list[float]] = {"Ann runs.": [1, 0], "Bob sits.": [0, 1], "h1": [1, 0], "h2": [R, R]}
    (dense,) = roscoe_scores([Sol("s", "Ann runs. Bob sits.", ("h1", "h2"))], TableEncoder(table, default=[2, 1]))
    (sparse,) = roscoe_scores(
        [Sol("s", "Ann runs. Bob sits.", ("h1", "  ", "h2"))], TableEncoder(table, default=[2, 1])
    )
    assert sparse.scores == dense.scores
    assert [s.index for s in sparse.steps] == [0, 1, 2]
    assert sparse.steps[1].source_similarity is None and sparse.steps[1].text == "  "
    assert sparse.steps[2].repeat_index == 0  # the earlier step, by its place in the solution
    assert sparse.steps[2].source_similarity == dense.steps[1].source_similarity


def test_roscoe_one_step_chain_and_nli_scores() -> None:
    encoder = TableEncoder({"Ann runs.": [1, 0], "Bob sits.": [0, 1], "it is not so": [0, 1]}, default=[1, 1])
    nli = WordNLI(high=0.8, low=0.1)
    (scored,) = roscoe_scores([Sol("s", "Ann runs. Bob sits.", ("it is not so",))], encoder, nli)
    assert scored.scores["repetition_step"] == 1.0  # ROSCOE's value for a one-step chain
    assert scored.scores["source_consistency"] == pytest.approx(1 - 0.8)
    assert scored.scores["self_consistency"] == pytest.approx(1 - 0.8)  # i = j included
    assert scored.steps[0].earlier_contradiction is None


def test_roscoe_step_contradiction_against_earlier_steps() -> None:
    encoder = TableEncoder({}, default=[1, 0])
    (scored,) = roscoe_scores([Sol("s", "A", ("So 5.", "It is not 5."))], encoder, WordNLI())
    assert scored.steps[1].earlier_contradiction == pytest.approx(0.9)
    assert scored.steps[1].earlier_contradiction_index == 0


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
        ("\\boxed{\\text{Step } 3}", 2),  # nested braces
        ("\\boxed{\u22121}", -1),  # Unicode minus
        ("<think>Step 2 is wrong... no.</think> All steps are correct.", -1),  # reasoning is not the answer
        ("<think>Step 2 is wrong, so", None),  # unfinished reasoning: no answer
        ("The error is in step 9. Actually the error is in step 4.", 3),  # a step that does not exist is skipped
        ("\\boxed{\\text{No error}}", -1),
        ("-1", -1),  # a terse judge answers with the number alone
        (" 3.\n", 2),
        ("Step 2", 1),
        ("二", 1),
        ("7", None),  # out of range
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


def test_judge_names_requests_by_id_and_sends_text_to_base_models() -> None:
    seen: list[GenerationRequest] = []

    def answer(request: GenerationRequest) -> str:
        seen.append(request)
        return "\\boxed{1}"

    backend = ScriptedBackend(answer=answer, is_chat=False)
    (verdict,) = judge_solutions([("Tom has 3.", ["3 + 1 = 4"])], backend, ids=["pb-7"])
    assert verdict.first_error == 0 and seen[0].id == "pb-7"
    assert isinstance(seen[0].prompt, str) and "Step 1: 3 + 1 = 4" in seen[0].prompt


def test_judge_log_resumes_after_a_torn_line(tmp_path: Path) -> None:
    log = tmp_path / "judge.jsonl"
    line = {"id": "a", "response": "\\boxed{2}", "error": None, "model": "scripted", "backend": "scripted"}
    log.write_text(json.dumps(line) + "\n" + '{"id": "b", "resp', encoding="utf-8")  # killed mid-write
    backend = ScriptedBackend(answer=lambda request: "All steps are correct.")
    solutions = [Sol("a", "Q", ("x", "y")), Sol("b", "Q", ("x", "y"))]
    verdicts = judge_resumably(solutions, backend, log)
    assert [v.first_error for v in verdicts] == [1, -1] and backend.batches == [1]  # only "b" asked
    lines = [json.loads(text) for text in log.read_text(encoding="utf-8").splitlines()]
    assert [x["id"] for x in lines] == ["a", "b"] and lines[1]["first_error"] == -1


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
