"""Equations, unsupported and unused numbers, doubt words: each on hand-made steps."""

from __future__ import annotations

import pytest

from reasoning_metrics.verify.rules.arithmetic import check_steps
from reasoning_metrics.verify.rules.doubt import DoubtKind, doubt_cues
from reasoning_metrics.verify.rules.equations import equation_conflicts
from reasoning_metrics.verify.rules.quantities import given_numbers, unsupported_operands, unused_given_numbers


def test_an_equation_rewritten_wrongly_conflicts_with_the_one_before() -> None:
    steps = ["Let B be the price. 0.99B + 1.01B + B = 4500.", "So 3.01B = 4500, and B = 1495."]
    conflicts = equation_conflicts(check_steps(steps))
    assert conflicts[0] == []
    assert [c.variable for c in conflicts[1]] == ["B"]
    assert conflicts[1][0].previous == pytest.approx(1500)


def test_equivalent_rewrites_and_rounded_solutions_do_not_conflict() -> None:
    steps = ["150 + x = 500", "x = 500 - 150 = 350", "3y = 100", "y = 33.3"]
    assert equation_conflicts(check_steps(steps)) == [[], [], [], []]


def test_after_a_non_linear_equation_the_unknown_is_no_longer_followed() -> None:
    steps = ["x^2 - 5x + 6 = 0", "x - 2 = 0", "x - 3 = 0"]
    assert equation_conflicts(check_steps(steps)) == [[], [], []]


@pytest.mark.parametrize(
    "steps",
    [
        [r"$a_1 = 3$ and $a_2 = 2a_1 - 1 = 5$.", r"So $a_3 = 2a_2 - 1 = 9$ and $a_{n+1} = 2a_n - 1$."],
        [r"$$m_水=\rho_水V_水=300{g}-50{g}=250{g}$$", r"$${{m}_{{液}}}=250{g}-50{g}=200{g}$$"],
        [r"$x_1 + 1 = 3$ and $x_2 - 1 = 2$."],
    ],
)
def test_subscripts_name_different_unknowns(steps: list[str]) -> None:
    assert equation_conflicts(check_steps(steps)) == [[] for _ in steps]


@pytest.mark.parametrize(
    "steps",
    [
        [r"Let $f(x) = 2x + 1$, so $f(2) = 5$.", r"And $f(3) = 2(3) + 1 = 7$; $P(A) = 0.5$, $P(B) = 0.25$."],
        [r"One slope is $m = \frac{6-2}{4-2} = 2$.", r"The other line has $m = -1$."],  # definitions
        [r"Case 1: $x = 2$, so $3x + 1 = 7$.", r"Case 2: $x = 5$, so $3x + 1 = 16$."],  # evaluated cases
        [r"$|x - 3| = 5$ gives $x - 3 = 5$ or $x - 3 = -5$.", r"So $x = 8$ or $x = -2$."],  # alternatives
    ],
)
def test_values_of_functions_definitions_cases_and_alternatives_do_not_conflict(steps: list[str]) -> None:
    assert equation_conflicts(check_steps(steps)) == [[] for _ in steps]


@pytest.mark.parametrize(
    "steps",
    [
        [
            "Let x be the number of apples: x + 5 = 12, so x = 7.",
            "Now let x be the number of pears: 2x = 10, so x = 5.",
        ],
        ["设苹果有x个，x+5=12，x=7。", "设梨有x个，则2x=10，x=5。"],
    ],
)
def test_an_unknown_defined_anew_starts_afresh(steps: list[str]) -> None:
    assert equation_conflicts(check_steps(steps)) == [[], []]
    # without the new definition the second equation contradicts the first
    assert equation_conflicts(check_steps([steps[0], steps[1].replace("let x be", "").replace("设梨有x个，", "")]))[1]


def test_a_solution_that_disagrees_with_its_equation_still_conflicts_after_a_case() -> None:
    steps = [r"Case 1: $x = 2$, so $3x + 1 = 7$.", r"Case 2: $3x + 1 = 16$, so $3x = 15$ and $x = 6$."]
    assert [(c.value, c.previous) for c in equation_conflicts(check_steps(steps))[1]] == [(6.0, 5.0)]


def test_a_subscripted_unknown_solved_wrongly_still_conflicts() -> None:
    conflicts = equation_conflicts(check_steps([r"$2a_1 + 4 = 10$", r"so $2a_1 = 6$ and $a_1 = 4$"]))
    assert [(c.variable, c.value, c.previous) for c in conflicts[1]] == [("a_1", 4.0, 3.0)]


def test_wrong_solving_step_in_chinese_is_found() -> None:
    conflicts = equation_conflicts(check_steps(["2x+3=11，", "所以2x=8，x=5"]))
    assert [c.value for c in conflicts[1]] == [5.0]


def test_unsupported_operand_comes_from_nowhere() -> None:
    question = "Tom has 12 apples and buys 5 more. How many apples does he have?"
    steps = ["He had 12 apples.", "12 + 8 = 20 apples."]
    found = unsupported_operands(question, check_steps(steps))
    assert found[0] == [] and [u.value for u in found[1]] == [8.0]


@pytest.mark.parametrize(
    ("question", "step"),
    [
        ("A shirt costs $40 and is 25% off. What does it cost?", "40 × (1 - 0.25) = 30"),  # 1 - p
        ("A shirt costs $40 and is 25% off. What does it cost?", "40 × 0.75 = 30"),  # 1 - p/100
        ("She works 3 hours a day. How many minutes is that in a week?", "3 × 60 × 7 = 1260"),  # constants
        ("Twice a week he runs three miles.", "2 × 3 = 6"),  # number words
        ("一共有三十五个苹果，分给5人。", "35 ÷ 5 = 7"),  # Chinese numerals
    ],
)
def test_supported_operands_are_not_flagged(question: str, step: str) -> None:
    assert unsupported_operands(question, check_steps([step])) == [[]]


def test_results_of_earlier_steps_support_later_operands() -> None:
    question = "Pens cost 3 dollars. Sam buys 4 pens and 2 books at 13 dollars each."
    steps = ["Pens: 3 × 4 = 12.", "Books: 2 × 13 = 26.", "Total: 12 + 26 = 38."]
    assert unsupported_operands(question, check_steps(steps)) == [[], [], []]


def test_a_formula_written_earlier_supports_its_evaluated_parts() -> None:
    question = "Find the distance between the points $(1, 2)$ and $(4, 6)$."
    formula = r"By the distance formula, $d = \sqrt{(4-1)^2 + (6-2)^2}$."
    assert unsupported_operands(question, check_steps([formula, r"$\sqrt{9 + 16} = 5$"])) == [[], []]
    found = unsupported_operands(question, check_steps([formula, r"$\sqrt{9 + 15} = 5$"]))
    assert [u.value for u in found[1]] == [15.0]  # no part of the formula is worth 15


def test_a_number_of_an_earlier_calculation_in_the_step_supports_a_later_one() -> None:
    question = "50 people were kicked out: 3 for masks, 7 for shoplifting, 21 for violence. How many for other reasons?"
    step = r"\[ 3 + 7 + 21 + O = 50 \] \[ 31 + O = 50 \] \[ O = 50 - 31 \] \[ O = 19 \]"
    assert unsupported_operands(question, check_steps([step])) == [[]]
    prose = "He works 5 days a week. Daily earnings = $105 / 5. Daily earnings = $21."  # 5 is only in prose
    found = unsupported_operands("Felix earned $105 last week.", check_steps([prose]))
    assert [u.value for u in found[0]] == [5.0]


def test_compound_number_words_are_given_numbers() -> None:
    question = "He buys forty-two 75-pound bales and twenty one sacks."
    assert {42.0, 21.0, 75.0} <= given_numbers(question)


def test_unused_given_numbers() -> None:
    question = "Ann has 17 stickers, gives away 4 and buys 9. How many now?"
    assert unused_given_numbers(question, check_steps(["17 - 4 = 13"])) == [9.0]
    assert unused_given_numbers(question, check_steps(["17 - 4 = 13", "13 + 9 = 22"])) == []


@pytest.mark.parametrize(
    ("step", "kind"),
    [
        ("However, the question asks for the total.", DoubtKind.SELF_CORRECTION),
        ("Wait, let's recalculate that.", DoubtKind.SELF_CORRECTION),
        ("Assuming each box holds the same amount, ...", DoubtKind.ASSUMPTION),
        ("This is not possible, since a count cannot be negative.", DoubtKind.IMPOSSIBILITY),
        ("That is approximately 33 people.", DoubtKind.APPROXIMATION),
        ("等一下，重新计算一遍。", DoubtKind.SELF_CORRECTION),
        ("结果是 5。等等，再看一下。", DoubtKind.SELF_CORRECTION),
        ("题目没有说明每箱的数量。", DoubtKind.ASSUMPTION),
        ("刚才第二步算错了，应为 12。", DoubtKind.SELF_CORRECTION),
    ],
)
def test_doubt_cues(step: str, kind: DoubtKind) -> None:
    assert kind in {c.kind for c in doubt_cues(step)}


@pytest.mark.parametrize(
    "step",
    [
        "So 3 × 4 = 12 apples in total.",
        "∵a>0，∴与已知矛盾，假设不成立。",
        "x=-2不合题意，舍去。",
        "The answer is 42.",
        "注意不要写错单位。",
        "这一步容易算错，要细心。",
        "杠杆不一定是直的，比如钳子、扳手等等，故A错误；",  # 等等 after a list is "etc."
    ],
)
def test_no_doubt_in_plain_reasoning(step: str) -> None:
    assert doubt_cues(step) == []


def test_doubt_words_of_the_question_are_not_the_solvers_doubt() -> None:
    question = "After 3 rounds Mike has 21 points. However, Jim has 3 points less. How many points does Jim have?"
    assert doubt_cues("After the third round, Jim has 18 points. However, Jim has 3 points less.", question) == []
    # a cue of the same kind in the solver's own words, later in the step, still counts
    step = "However, Jim has 3 points less. However, that is odd, so let's recalculate."
    cues = doubt_cues(step, question)
    assert [(c.kind, c.text) for c in cues] == [(DoubtKind.SELF_CORRECTION, "let's recalculate")]
    assert [c.text for c in doubt_cues(step)] == ["However"]  # without the question: the first one


def test_meta_eval_reads_each_detectors_orientation_and_models_from_its_record() -> None:
    from reasoning_metrics.metaeval.detectors import MEASURED, needed_models
    from reasoning_metrics.verify.registry import DETECTORS as REGISTRY

    declared = {name: d.orientation for name, d in REGISTRY.items() if d.orientation}
    assert set(declared) <= set(MEASURED) and len(declared) == 7
    assert all(MEASURED[name].needs == REGISTRY[name].roles for name in REGISTRY if name in MEASURED)
    assert REGISTRY["doubt"].step_measure == "heaviest" and REGISTRY["arithmetic"].step_measure == "count"
    assert needed_models(["arithmetic", "doubt"]) == frozenset()
    assert needed_models(["contradiction"]) == {"nli"}
    assert needed_models(["roscoe.info_chain"]) == {"encoder"}
    assert needed_models(["roscoe.source_consistency"]) == {"encoder", "nli"}
    assert needed_models(["judge", "prm"]) == {"judge", "prm"}
    assert needed_models(["aggregate"]) == {"encoder", "nli", "judge", "prm", "rollouts"}


def test_a_detectors_facts_are_typed_members_checked_when_its_class_is_made() -> None:
    # #35 item 3: labels, orientation and model needs on the class, with defaults on the base; no name table.
    from reasoning_metrics.verify.detector import Detector, Labels

    class Quiet(Detector):
        name = "quiet"
        labels = Labels(zh="安静", en="quiet")

    assert (Quiet.reads, Quiet.needs, Quiet.kinds, Quiet.orientation, Quiet.step_measure) == (
        frozenset(),
        frozenset(),
        frozenset(),
        None,
        "count",
    )
    assert Quiet().roles == frozenset()
    with pytest.raises(TypeError, match="no labels"):
        type("Nameless", (Detector,), {"name": "nameless"})
    with pytest.raises(TypeError, match="needs"):
        type("Greedy", (Detector,), {"name": "greedy", "labels": Labels("贪", "greedy"), "needs": frozenset({"prm"})})
