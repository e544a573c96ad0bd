"""The ``reference`` detector: where a model's steps leave the teacher's analysis or the gold answer.

Questions, analyses and steps are written here in the style of CK12 middle-school items (no CK12 text).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reasoning_metrics.verify.aggregate_rule import assess_one
from reasoning_metrics.verify.detector import Evidence, Reference
from reasoning_metrics.verify.detectors.reference import AgainstReference
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.arithmetic import check_steps
from tests.reasoning_metrics.verify.test_fuzz import FUZZ, STEP


@dataclass(frozen=True)
class Case:
    """A question, its reference, a model's steps, and where the first flag must land (-1: none)."""

    name: str
    problem: str
    answer: str
    analysis: str
    steps: tuple[str, ...]
    correct: bool | None
    first: int
    kind: FlagKind | None = None


HANDSHAKE = (
    "8个人参加聚会，每两个人都握一次手，一共握手多少次？",
    "28",
    "每个人要与其余7人各握手一次，$$8\\times 7=56$$，\n\n每次握手被算了两次，所以共握手$$56\\div 2=28$$次．\n\n故答案为：$$28$$．",
)
PERIMETER = (
    "长方形的长是$$8$$cm，宽是$$5$$cm，求它的周长．",
    "$$26$$",
    "周长$$=(8+5)\\times 2=26$$(cm)．\n\n故答案为：$$26$$．",
)
EQUATION = (
    "某数的$$3$$倍加上$$5$$等于$$20$$，求这个数．",
    "$$5$$",
    "设这个数为$$x$$，则$$3x+5=20$$，\n\n解得$$x=5$$．\n\n故答案为：$$5$$．",
)
INEQUALITY = ("解不等式$$2x-6>0$$．", "$$x>3$$", "移项得$$2x>6$$，\n\n∴$$x>3$$．")
SURD = (
    "设$$\\sqrt{17}$$的整数部分为$$m$$，小数部分为$$n$$，则$$m-n+\\sqrt{17}=$$____．",
    "$$8$$",
    "∵$$\\sqrt{16}<\\sqrt{17}<\\sqrt{25}$$，\n\n∴$$m=4$$，$$n=\\sqrt{17}-4$$．\n\n∴$$m-n+\\sqrt{17}=4-\\sqrt{17}+4+\\sqrt{17}=8$$．",
)
SPEED = (
    "小明$$0.5$$小时走了$$3$$千米，他的速度是多少千米/时？",
    "$$6$$",
    "速度$$=3\\div 0.5=6$$千米/时．\n\n故答案为：$$6$$．",
)
CHOICE = (
    "下列各数中，是无理数的是（　）\nA. 3.14\nB. $$\\sqrt{4}$$\nC. $$\\pi$$\nD. $$\\frac{1}{3}$$",
    "C",
    "$$\\sqrt{4}=2$$是有理数，$$\\pi$$是无理数．\n\n故选C．",
)

CASES = [
    # the example: a wrong model of the problem, graded wrong: where 4 comes from
    Case(
        "handshake, graded wrong",
        *HANDSHAKE,
        ("有8个人。", "每两个人握一次手，所以共握手8÷2=4次。", "答案：4"),
        False,
        1,
        FlagKind.REFERENCE_DEPARTURE,
    ),
    # ungraded: the final answer alone disagrees
    Case(
        "handshake, ungraded",
        *HANDSHAKE,
        ("有8个人。", "每两个人握一次手，所以共握手8÷2=4次。", "答案：4"),
        None,
        2,
        FlagKind.REFERENCE_ANSWER,
    ),
    # right arithmetic on the wrong quantity: the area where the perimeter is asked
    Case(
        "area for perimeter",
        *PERIMETER,
        ("长方形的面积为8×5=40", "所以周长为40cm", "答案：40"),
        False,
        0,
        FlagKind.REFERENCE_DEPARTURE,
    ),
    Case(
        "area for perimeter, ungraded",
        *PERIMETER,
        ("长方形的面积为8×5=40", "所以周长为40cm", "答案：40"),
        None,
        1,
        FlagKind.REFERENCE_VALUE,
    ),
    # a wrong equation set up from the text: it fails at the analysis's x = 5
    Case(
        "wrong equation",
        *EQUATION,
        ("设这个数为x，则3(x+5)=20", "解得x=5/3", "答案：5/3"),
        False,
        0,
        FlagKind.REFERENCE_VALUE,
    ),
    # a relation the analysis contradicts, on the question's own variable: flagged even graded right
    Case("reversed inequality", *INEQUALITY, ("2x>6", "所以x<3"), True, 1, FlagKind.REFERENCE_RELATION),
    # the same variable, another value
    Case(
        "wrong integer part",
        *SURD,
        ("因为4<√17<5，所以m=5。", "n=√17-5", "m-n+√17=10"),
        False,
        0,
        FlagKind.REFERENCE_VALUE,
    ),
    Case(
        "wrong integer part, graded right",
        *SURD,
        ("因为4<√17<5，所以m=5。", "n=√17-5", "m-n+√17=10"),
        True,
        0,
        FlagKind.REFERENCE_VALUE,
    ),
    # another route, graded right: no flag (30 minutes and metres are not the analysis's numbers)
    Case(
        "another route",
        *SPEED,
        ("0.5小时=30分钟", "3千米=3000米", "速度为3000÷30=100米/分", "100米/分=6千米/时", "答案：6"),
        True,
        -1,
    ),
    Case("another route, ungraded", *SPEED, ("0.5小时=30分钟", "速度为3000÷30=100米/分", "答案：6"), None, -1),
    # the analysis's own steps: never flagged
    Case("the analysis itself", *SURD, ("∴m=4，n=√17-4．", "∴m-n+√17=4-√17+4+√17=8．"), None, -1),
    # a choice question: the letter
    Case("wrong letter", *CHOICE, ("√4=2是有理数。", "3.14是有理数。", "故选B"), None, 2, FlagKind.REFERENCE_ANSWER),
    Case("right letter", *CHOICE, ("√4=2是有理数。", "故选C"), None, -1),
]


def _found(case: Case) -> list[list[FlagKind]]:
    reference = Reference(case.answer, case.analysis, case.correct)
    evidence = Evidence(case.problem, case.steps, check_steps(case.steps), reference=reference)
    return [[f.kind for f in flags] for flags in AgainstReference().find(evidence).steps]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_first_flag_lands_where_the_solution_leaves_the_reference(case: Case) -> None:
    found = _found(case)
    first = next((i for i, kinds in enumerate(found) if kinds), -1)
    assert first == case.first, found
    if case.kind is not None:
        assert case.kind in found[first]


@pytest.mark.parametrize("case", [c for c in CASES if c.correct is False], ids=lambda c: c.name)
def test_a_graded_wrong_answer_always_gets_a_first_suspect(case: Case) -> None:
    solution = _Sol("s", case.problem, case.steps)
    assessment = assess_one(solution, reference=Reference(case.answer, case.analysis, False))
    assert assessment.first_suspect == case.first
    assert "reference" in assessment.detectors


def test_a_graded_wrong_answer_that_follows_the_analysis_is_placed_at_its_final_value() -> None:
    steps = ("每个人与其余7人握手，8×7=56。", "56÷2=28", "答案：28")
    found = _found(Case("", *HANDSHAKE, steps, False, -1))
    assert found == [[], [FlagKind.REFERENCE_DEPARTURE], []]  # 28 first appears in step 1


def test_a_graded_right_answer_gets_no_soft_finding_but_a_calculation_on_known_numbers_the_analysis_never_reaches() -> (
    None
):
    # 8 and 2 are the question's, 4 is nowhere in the analysis: a departure on that step, and no answer finding
    steps = ("每两个人握一次手，所以共握手8÷2=4次。", "答案：4")
    assert _found(Case("", *HANDSHAKE, steps, True, -1)) == [[FlagKind.REFERENCE_DEPARTURE], []]
    # the analysis's values reached another way: nothing
    steps = ("每人握7次，8×7=56", "每次握手算了两次，56÷2=28", "答案：28")
    assert _found(Case("", *HANDSHAKE, steps, True, -1)) == [[], [], []]


CONE = (
    "已知圆锥的底面半径为$$3$$cm，母线长为$$5$$cm，则圆锥的侧面积是（  ）．\nA. $$15\\pi$$ cm²\nB. $$30\\pi$$ cm²\n"
    "C. $$20\\pi$$ cm²\nD. $$45\\pi$$ cm²",
    "A",
    "圆锥的侧面积$$=\\pi rl=\\pi\\times 3\\times 5=15\\pi$$（cm²）．故选A．",
)


def test_a_value_only_a_wrong_option_holds_is_a_departure() -> None:
    """A graded-wrong answer that computes 2×3×5 = 30, the value of option B (ruled out by the gold A): the
    options the gold answer rules out are not numbers the analysis reaches."""
    steps = ("圆锥的侧面积公式是 A = 2πrl。", "2×3×5=30", "所以侧面积是30π cm²，故选B")
    found = _found(Case("", *CONE, steps, False, -1))
    assert FlagKind.REFERENCE_DEPARTURE in found[1], found
    assert found[0] == []


@pytest.mark.parametrize("final", ["故选A", "选择A", "正确选项是A", "所以选A", "The answer is (A)."])
def test_a_final_choice_against_the_gold_is_flagged_once_on_its_step(final: str) -> None:
    problem = "下列说法正确的是（ ）\nA. 水是单质\nB. 氧气能支持燃烧"
    steps = ("A. 水是单质", "这个说法是正确的。", final)
    assessment = assess_one(_Sol("s", problem, steps), reference=Reference("B", "氧气能支持燃烧，故选B。", False))
    kinds = [[f.kind for f in step.flags] for step in assessment.steps]
    assert FlagKind.REFERENCE_ANSWER in kinds[2]
    assert len(kinds[2]) == 1, kinds  # not flagged again as an option verdict


def test_the_analysis_is_read_with_its_question() -> None:
    """The teacher's analysis is checked in its question's context, as the model's steps are: an ellipse question
    makes the analysis's ``e`` an eccentricity. Read alone, ``e^2 = c^2/a^2 = 3/4`` bound c^2/a^2 to Euler's number
    squared as well, and the flag said "the analysis gives c^2/a^2 = 0.75 or 7.38906"."""
    problem = "已知椭圆$$\\frac{x^2}{4}+y^2=1$$，求它的离心率．"
    analysis = (
        "由题意$$a=2$$，$$b=1$$，\n\n$$c=\\sqrt{a^2-b^2}=\\sqrt{3}$$，\n\n∴$$e^2=\\frac{c^2}{a^2}=\\frac{3}{4}$$．"
    )
    reference = Reference("$$\\frac{\\sqrt{3}}{2}$$", analysis, False)
    steps = ("a=2，b=1，c=√3", "e^2 = c^2/a^2 = 1/4", "所以离心率是1/2")
    found = AgainstReference().find(Evidence(problem, steps, check_steps(steps, problem), reference=reference))
    assert [[f.message for f in flags] for flags in found.steps][1] == [
        "c^2/a^2 = 0.25; the analysis gives c^2/a^2 = 0.75"
    ]


def test_without_a_reference_the_detector_does_not_run() -> None:
    solution = _Sol("s", HANDSHAKE[0], ("答案：4",))
    assessment = assess_one(solution, unavailable={"reference": "no analysis"})
    assert "reference" not in assessment.detectors and assessment.unavailable["reference"] == "no analysis"


@pytest.mark.slow
def test_long_model_text_stays_within_time() -> None:
    steps = tuple(f"x={k}，速度为{k}米，共有{k}种，x<{k}" for k in range(4000))
    reference = Reference(*SURD[1:], correct=False)
    started = time.process_time()  # CPU time of this process: other jobs on a busy machine do not count (#37)
    AgainstReference().find(Evidence(SURD[0], steps, check_steps(steps), reference=reference))
    assert time.process_time() - started < 10.0


@dataclass(frozen=True)
class _Sol:
    id: str
    problem: str
    steps: tuple[str, ...]


WORDS = st.sampled_from(
    ["是质数", "不是", "能被", "整除", "的倍数", "长方形", "长为", "宽为", "面积为", "5边形内角和为", "8人", "握手",
     "共", "次", "km", "=", "米", "x>3", "x<", "设x", "速度为", "故答案为", "故选", "C(8,2)=", "A_4^4=", "10^", "×"]
)  # fmt: skip
HOSTILE = st.lists(st.one_of(WORDS, STEP), max_size=10).map("".join)


@settings(parent=FUZZ, max_examples=60)
@given(HOSTILE, st.lists(HOSTILE, min_size=1, max_size=5), HOSTILE, HOSTILE, st.sampled_from([True, False, None]))
@pytest.mark.slow
def test_facts_and_reference_check_any_chain_against_any_reference(
    problem: str, steps: list[str], answer: str, analysis: str, correct: bool | None
) -> None:
    assessment = assess_one(_Sol("s", problem, tuple(steps)), reference=Reference(answer, analysis, correct))
    assert assessment.status in ("checked", "too_long"), assessment.flags
    if assessment.status == "checked":
        assert {"facts", "reference"} <= set(assessment.detectors)
        if correct is False:
            assert assessment.first_suspect >= 0  # a graded-wrong answer always gets a step
