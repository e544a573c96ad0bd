"""The aggregate rule: flags, suspicion, solution score and first suspect, as docs/detectors.md says."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from reasoning_metrics.reasons import worded
from reasoning_metrics.verify.aggregate_rule import (
    FLAG_THRESHOLD,
    LOCATE_AT,
    SEVERITY,
    TIE_BREAK,
    assess_solutions,
    step_score,
)
from reasoning_metrics.verify.flags import FlagKind, SolutionAssessment
from tests.reasoning_metrics.verify.fakes import TableEncoder, WordNLI


@dataclass
class Sol:
    id: str
    problem: str
    steps: list[str]


QUESTION = "Tom has 12 apples and buys 5 more. How many apples does he have?"


def kinds(assessment: SolutionAssessment) -> list[list[str]]:
    return [[f.kind.value for f in step.flags] for step in assessment.steps]


def test_a_correct_solution_has_no_flags_and_no_suspect() -> None:
    (a,) = assess_solutions([Sol("ok", QUESTION, ["12 + 5 = 17", "The answer is 17."])])
    assert kinds(a) == [[], []] and a.flags == []
    assert (a.score, a.first_suspect) == (0.0, -1)
    assert set(a.unavailable) == {"roscoe", "contradiction", "judge", "reference", "option_verdicts", "prm", "rollouts"}


def test_false_arithmetic_flags_its_step_and_is_the_first_suspect() -> None:
    (a,) = assess_solutions([Sol("bad", QUESTION, ["He had 12 apples.", "12 + 5 = 18", "The answer is 18."])])
    assert kinds(a) == [[], ["arithmetic"], []]
    assert a.steps[1].flags[0].evidence == "12 + 5 = 18"
    assert a.steps[1].suspicion == pytest.approx(SEVERITY[FlagKind.ARITHMETIC])
    assert a.first_suspect == 1 and a.score == pytest.approx(SEVERITY[FlagKind.ARITHMETIC])


def test_flags_combine_by_noisy_or_and_weak_flags_alone_flag_no_step() -> None:
    steps = ["Approximately 12 + 5 = 18 apples.", "Let's say about 17 apples."]
    (a,) = assess_solutions([Sol("two", QUESTION, steps)])
    doubt = next(f.severity for f in a.steps[0].flags if f.kind is FlagKind.DOUBT)
    assert a.steps[0].suspicion == pytest.approx(1 - (1 - SEVERITY[FlagKind.ARITHMETIC]) * (1 - doubt))
    no_answer = SEVERITY[FlagKind.NO_FINAL_ANSWER]
    assert [f.kind for f in a.flags] == [FlagKind.NO_FINAL_ANSWER]
    assert a.score == pytest.approx(1 - (1 - a.steps[0].suspicion) * (1 - no_answer))
    assert (a.first_suspect, a.suspect_rule) == (0, "flag")
    (weak,) = assess_solutions([Sol("weak", QUESTION, ["12 + 5 = 17"])])
    assert weak.score == pytest.approx(no_answer) and no_answer < FLAG_THRESHOLD
    assert all(s.suspicion < FLAG_THRESHOLD for s in weak.steps)


@pytest.mark.parametrize(
    ("steps", "first", "rule"),
    [
        # no step flagged, the solution is (no final answer): the first step with a finding...
        (["He has some apples.", "Approximately 12 + 5 = 17 apples.", "So 17 apples."], 1, "fallback"),
        # ...else the first step that calculates
        (["He has some apples.", "He buys more.", "12 + 5 = 17", "So 17 apples."], 2, "fallback"),
        # an approximation cue alone (0.2) is below LOCATE_AT: nothing is suspect
        (["He has 12 and 5 more.", "Approximately 12 + 5 = 17.", "The answer is 17."], -1, "none"),
        # a flagged step wins over the fallback
        (["He has 12 apples.", "12 + 5 = 18", "So 18 apples."], 1, "flag"),
    ],
)
def test_a_suspect_solution_without_a_flagged_step_gets_the_fallback_suspect(
    steps: list[str], first: int, rule: str
) -> None:
    (a,) = assess_solutions([Sol("f", QUESTION, steps)])
    assert (a.first_suspect, a.suspect_rule) == (first, rule)
    if rule == "fallback":
        severities = [f.severity for f in a.flags] + [f.severity for s in a.steps for f in s.flags]
        assert max(severities) >= LOCATE_AT and all(s.suspicion < FLAG_THRESHOLD for s in a.steps)


def test_an_unused_given_number_alone_names_no_step() -> None:
    # it says something is missing, not where something is wrong: solution flag, no suspect
    (a,) = assess_solutions([Sol("u", QUESTION, ["He has 12 apples.", "So 12 apples."])])
    assert {f.kind for f in a.flags} == {FlagKind.UNUSED_GIVEN, FlagKind.NO_FINAL_ANSWER}
    (b,) = assess_solutions([Sol("u", QUESTION, ["He has 12 apples.", "The answer is 12."])])
    assert [f.kind for f in b.flags] == [FlagKind.UNUSED_GIVEN]
    # no finding on a step, no calculation: the fallback names the first step
    assert (a.first_suspect, a.suspect_rule, b.first_suspect, b.suspect_rule) == (0, "fallback", -1, "none")


def test_a_count_that_is_not_whole_is_a_solution_flag() -> None:
    (a,) = assess_solutions([Sol("n", QUESTION, ["12 + 5 / 2 = 14.5", "The answer is 14.5."])])
    assert [f.kind for f in a.flags] == [FlagKind.NOT_WHOLE] and "14.5" in a.flags[0].message
    assert (a.first_suspect, a.suspect_rule) == (0, "fallback")
    measured = "A rope is 12 m long and gets 5.5 m longer. How many meters long is it?"
    (b,) = assess_solutions([Sol("m", measured, ["12 + 5.5 = 17.5", "The answer is 17.5."])])
    assert b.flags == [] and b.first_suspect == -1


ZH_QUESTION = "小明有 12 个苹果，又买了 5 个。他一共有多少个苹果？"


@pytest.mark.parametrize(
    ("question", "last", "flagged"),
    [
        (QUESTION, "The answer is 17.", False),
        (QUESTION, r"So he has \boxed{17} apples.", False),
        (QUESTION, "So, he has 17 apples.", True),  # English model output states its answer with a marker
        (QUESTION, "Total = 12 + 5 = 17 apples.", True),
        (ZH_QUESTION, "答案是 17．", False),
        (ZH_QUESTION, "∴ 他有 17 个苹果．", False),  # Chinese solutions conclude with ∴ / 故 / 所以 ...
        (ZH_QUESTION, "所以他一共有 17 个苹果．", False),
        (ZH_QUESTION, "故他有 17 个．", False),
        (ZH_QUESTION, "$$12+5=17$$．", False),  # ... or with the relation itself
        (ZH_QUESTION, "他很高兴．", True),
    ],
)
def test_what_states_a_final_answer(question: str, last: str, flagged: bool) -> None:
    (a,) = assess_solutions([Sol("f", question, ["12 + 5 = 17", last])])
    assert (FlagKind.NO_FINAL_ANSWER in {f.kind for f in a.flags}) is flagged


def test_a_chinese_explanation_without_calculations_needs_no_concluding_word() -> None:
    question = "小车不再受推力后为什么会慢慢停下来？"
    explanation = ["小车在运动中受到阻力．", "这表明力可以改变物体的运动状态．"]
    (a,) = assess_solutions([Sol("z", question, explanation)])
    assert a.flags == [] and a.first_suspect == -1
    # the same explanation in English, and a Chinese calculation without a conclusion, are still flagged
    (b,) = assess_solutions([Sol("e", "Why does the cart stop?", ["It meets friction.", "Force changes motion."])])
    (c,) = assess_solutions([Sol("c", ZH_QUESTION, ["12 + 5 = 17", "他很高兴．"])])
    # an answer stated before the last step: the conclusion is out of place
    (d,) = assess_solutions([Sol("d", question, ["故答案为：受到阻力．", *explanation])])
    for flagged in (b, c, d):
        assert FlagKind.NO_FINAL_ANSWER in {f.kind for f in flagged.flags}


def test_unused_given_numbers_are_a_solution_flag() -> None:
    (a,) = assess_solutions([Sol("u", QUESTION, ["He has 12 apples.", "The answer is 12."])])
    assert [f.kind for f in a.flags] == [FlagKind.UNUSED_GIVEN] and "5" in a.flags[0].message


def test_contradictions_and_judge_add_flags_where_they_point() -> None:
    sol = Sol("c", QUESTION, ["12 + 5 = 17", "He does not have 17.", "The answer is 17."])
    (a,) = assess_solutions([sol], nli=WordNLI(), judged=[2])
    assert kinds(a) == [[], ["contradiction"], ["judge"]]
    assert a.steps[1].contradiction == pytest.approx(0.9)
    assert a.first_suspect == 1
    assert (
        "contradiction" in a.detectors
        and "judge" in a.detectors
        and set(a.unavailable) == {"roscoe", "reference", "option_verdicts", "prm", "rollouts"}
    )


def test_a_process_reward_model_and_rollouts_add_flags_where_they_point() -> None:
    sol = Sol("p", QUESTION, ["12 + 5 = 17", "He gives 3 away: 17 - 3 = 14", "The answer is 14."])
    (a,) = assess_solutions([sol], prm=[[0.9, 0.3, 0.2]], rollouts=[[0.5, 1.0, 0.0]])
    assert kinds(a) == [[], ["prm"], ["prm", "rollout"]]
    assert a.steps[1].flags[0].severity == pytest.approx(0.7)
    assert a.first_suspect == 1 and {"prm", "rollouts"} <= set(a.detectors)
    (unscored,) = assess_solutions([sol], prm=[None], rollouts=[None])
    assert kinds(unscored) == [[], [], []]
    said = {name: worded(why) or "" for name, why in unscored.unavailable.items()}
    assert "could not score" in said["prm"] and "gold" in said["rollouts"]


def test_roscoe_only_breaks_ties() -> None:
    table: dict[str, list[float]] = {
        "Tom has 12 apples and buys 5 more.": [1, 0],
        "How many apples does he have?": [0, 1],
    }
    table |= {"12 + 5 = 17": [1, 0], "The answer is 17.": [0, 1], "The answer: 17 apples.": [-1, 0]}
    encoder = TableEncoder(table)
    good = Sol("g", QUESTION, ["12 + 5 = 17", "The answer is 17."])
    odd = Sol("o", QUESTION, ["12 + 5 = 17", "The answer: 17 apples."])  # same flags (none), worse alignment
    a, b = assess_solutions([good, odd], encoder=encoder)
    assert a.score == 0.0 < b.score < TIE_BREAK  # perfectly aligned: faithfulness 1
    assert step_score(b.steps[1]) > step_score(a.steps[1])
    assert encoder.calls == 1  # every text of every solution in one batch


def test_a_repeated_step_is_flagged_and_stated_answers_need_a_source() -> None:
    steps = ["12 + 5 = 17", "12 + 5 = 17.", "The answer is 17."]
    (a,) = assess_solutions([Sol("r", QUESTION, steps)])
    assert kinds(a) == [[], ["repetition"], []] and a.first_suspect == 1
    (b,) = assess_solutions([Sol("p", QUESTION, ["The answer is 17.", "12 + 5 = 17"])])  # answer before its work
    assert kinds(b)[0] == ["unsupported_number"] and b.first_suspect == 0
