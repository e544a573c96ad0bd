"""Judgment answers in English or mixed that name their statements ("Statement 2 is false", "the first is true",
"1st: correct", "#3 True"), and answers in 0/1 (judgment audit 4). English labels were read as no label before, so
verdicts went to the statements in the order the answer discusses them: out of order, to the wrong statements."""

from __future__ import annotations

import pytest

from runners.extract import extract
from tests.qfactory import judgment
from tests.runners.test_extract_judgment_forms import FOUR, ONE

TFFT = [True, False, False, True]


@pytest.mark.parametrize(
    "output",
    [
        "Statement 2 is false, statement 1 is true, statement 4 is true, statement 3 is false.",
        "The second is false, the first is true, the fourth is true, the third is false.",
        "2nd: incorrect 1st: correct 4th: correct 3rd: incorrect",
        "Statement two is false. Statement one is true. Statement four is true. Statement three is false.",
        "#2 False #1 True #4 True #3 False",
        "No. 2: F; No. 1: T; No. 4: T; No. 3: F",
        "Q2: False Q1: True Q4: True Q3: False",
        "The first statement is true. The second and third are false. The fourth is true.",
        "Statements 1 and 4 are true; statements 2 and 3 are false.",
        "Statements 2, 3 are false. Statements 1, 4 are true.",
        "第二个说法 false, 第一个 true, 第四个 true, 第三个 false",
    ],
)
def test_english_labels_name_the_statement_their_verdict_goes_to(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer, found.rule) == ("ok", TFFT, "numbered"), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        "Statement 2 is false.",  # one of four
        "Statements 1 and 4 are true, and 2 and 3 are false.",  # "2 and 3" names no statement
        "The first is true, the second is false, the third is false.",
        "Statement 1 is true, statement 1 is false, statement 3 is false, statement 4 is true.",
        # a comma joins no labels into a group: "First" is a step, not statement 1 (read as 1 and 2 before the fix)
        "First, the second statement is true, the third is false, the fourth is true.",
        "第一，第二个说法正确，第三个说法错误，第四个说法正确",
    ],
)
def test_english_labels_not_one_per_statement_leave_it_unparsed(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


def test_steps_named_first_and_second_inside_a_statements_line_are_no_labels() -> None:
    """Only a line that starts "First," names a statement; inside one they are steps (an English model's CoT)."""
    two = judgment(["3+4=7", "7是偶数"], [True, False])
    output = "1. First, 3+4=7. Second, the sum is right. So it is true.\n2. First, 7=2×3+1. So it is false."
    assert extract(two, output).answer == [True, False]
    output = "The student sold the bouquets first, based on the price. It is correct.\nThe second: false."
    assert extract(two, output).status == "unparsed"  # "first," is no label: statement 1 has no verdict


@pytest.mark.parametrize(
    ("output", "verdict"),
    [
        ("The first step is to compute 3+4=7, so the statement is true.", True),  # no label: a step
        ("It takes 5 second. The statement is false.", False),  # a unit
        ("At first, I thought it was wrong. But it is true.", None),  # two verdicts for one statement
    ],
)
def test_english_words_that_are_no_label(output: str, verdict: bool | None) -> None:
    found = extract(ONE, output)
    assert found.answer == (None if verdict is None else [verdict]), (output, found)


LEGEND = "1表示正确，0表示错误："


@pytest.mark.parametrize(
    "output",
    [
        f"{LEGEND}1 0 0 1",
        f"{LEGEND}1001",
        f"{LEGEND}1,0,0,1",
        f"{LEGEND}1、0、0、1",
        f"{LEGEND}①1 ②0 ③0 ④1",
        f"{LEGEND}②0 ①1 ④1 ③0",
        f"{LEGEND}\n1. 1\n2. 0\n3. 0\n4. 1",
        "1表示正确，0表示错误。(1) 1 (2) 0 (3) 0 (4) 1",
        "(1 = true, 0 = false) 1 0 0 1",
        "1 0 0 1（1代表对，0代表错）",
        "正确的写1，错误的写0：1 0 0 1",
        "0表示正确，1表示错误：0 1 1 0",
    ],
)
def test_zero_one_answers_with_their_legend(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("ok", TFFT), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        # no legend: 1 is most likely 正确, but nothing says so
        "1 0 0 1",
        "1,0,0,1",
        "①1 ②0 ③0 ④1",
        "1. 1\n2. 0\n3. 0\n4. 1",
        # half a legend, or one that contradicts itself
        "1表示正确：1 0 0 1",
        "1表示正确，1表示错误：1 0 0 1",
        # a legend, but not one digit per statement, or digits that are results
        f"{LEGEND}1 0 0",
        f"{LEGEND}1 0 0 1 1",
        f"{LEGEND}结果是1，所以第二个说法错误",
    ],
)
def test_zero_one_answers_without_a_legend_or_one_per_statement_stay_unparsed(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


def test_the_stems_legend_reads_the_answers_zero_one() -> None:
    question = judgment(
        ["对顶角相等", "错角一定相等", "两直线平行，同旁内角相等", "三角形内角和为180度"],
        TFFT,
        stem="判断下列说法，正确的填１，错误的填０。",  # full width, as banks write it
    )
    assert extract(question, "1 0 0 1").answer == TFFT
    assert extract(FOUR, "1 0 0 1").status == "unparsed"  # the same answer, no legend


def test_a_times_sign_before_a_masked_dollar_is_no_verdict() -> None:
    """An English CoT writes "\\times \\$1.50": the $ is masked, its backslash stayed, and × read as F (found on
    ProcessBench solutions once "First," lines named statements)."""
    assert extract(ONE, r"\(3 \times \$1.50 = \$4.50\), so the statement is true.").answer == [True]


@pytest.mark.parametrize(
    ("output", "verdict"),
    [
        # Qwen2.5-Coder-0.5B's form on CK12's English judgments (sentence written here): its F, then prose whose
        # "a correct pronunciation" was read as a second verdict (T), and the answer was unparsed
        ('1. F. The sentence "Who is your teacher?" does not have a correct pronunciation of "teacher".', False),
        ("The correct one is this one. It is false.", False),
        ("It is a true statement.", True),
        ("It is an incorrect statement.", False),
    ],
)
def test_an_english_verdict_word_before_its_noun_is_prose(output: str, verdict: bool) -> None:
    found = extract(ONE, output)
    assert (found.status, found.answer) == ("ok", [verdict]), (output, found)


def test_an_english_question_about_a_statement_is_no_verdict() -> None:
    """ "Is statement 2 true? No." asks, and the answer is "No": read as each statement true before."""
    output = "Is statement 1 true? Yes. Is statement 2 true? No. Is statement 3 true? No. Is statement 4 true? Yes."
    assert extract(FOUR, output).status == "unparsed"
    output = "Is statement 2 true? Let's check.\n1. True\n2. False\n3. False\n4. True"
    assert extract(FOUR, output).answer == TFFT


def test_a_physics_stems_forces_and_periods_are_no_legend() -> None:
    """A stem's "合力F=0" and "周期T=1 s" are quantities, not "F is 0, T is 1": "1 0" stays unread (was T F)."""
    question = judgment(
        ["物体所受合力为零时一定静止", "周期为1 s的单摆摆长约为0.25 m"],
        [False, True],
        stem="已知物体所受合力F=0，单摆周期 T=1 s，判断下列说法是否正确。",
    )
    assert extract(question, "1 0").status == "unparsed"


def test_a_legend_written_with_its_verb_before_the_digit() -> None:
    """ "用1表示正确，0表示错误" is how a Chinese answer most often writes it (unread before: 用 is a word character)."""
    assert extract(FOUR, "用1表示正确，0表示错误：①1 ②0 ③0 ④1").answer == TFFT
