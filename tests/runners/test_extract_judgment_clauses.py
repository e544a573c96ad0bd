"""Verdict words that are not the answer's verdict (judgment review 2): one asked with a bare question mark
("这个说法正确？"), one inside a condition ("如果①正确，那么②正确"), English verdict words outside a verdict's place
("let's correct this", "to be correct", "is it true that"). Read right, or left unread: never a wrong verdict."""

from __future__ import annotations

import pytest

from kg.records import Question
from runners.extract import extract
from tests.qfactory import judgment

ONE = judgment(["0是最小的自然数"], [True])
TWO = judgment(["对顶角相等", "同位角相等"], [True, False])
FOUR = judgment(
    ["对顶角相等", "错角一定相等", "两直线平行，同旁内角相等", "三角形内角和为180度"], [True, False, False, True]
)


@pytest.mark.parametrize(
    ("question", "output"),
    [
        # read as the word asked before (T; each T; [T, F, F, T])
        (ONE, "这个说法正确？"),
        (ONE, "这个说法是错误的？"),
        (ONE, "下列哪种说法是正确的？"),  # the stem echoed: it asks the reader
        (FOUR, "以上说法都正确？"),
        (FOUR, "四个说法都是错的？"),
        (FOUR, "对错错对？"),
    ],
)
def test_a_verdict_asked_with_a_question_mark_is_none(question: Question, output: str) -> None:
    found = extract(question, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


@pytest.mark.parametrize(
    ("question", "output", "verdicts"),
    [
        # a rhetorical question answered after it: the answer's verdict (unread before: 正确 and 不对 disagreed)
        (ONE, "①正确？不对，①错误，0不是……", [False]),
        (ONE, "这个说法正确？不对，最小的自然数是0，所以说法错误。", [False]),
        (TWO, "①正确？对。②正确？不对，同位角不一定相等。", [True, False]),
    ],
)
def test_a_question_answered_after_it_reads_the_answer(question: Question, output: str, verdicts: list[bool]) -> None:
    found = extract(question, output)
    assert (found.status, found.answer) == ("ok", verdicts), (output, found)


@pytest.mark.parametrize(
    ("question", "output"),
    [
        # read before as the verdict words said: [T, T] (three), [F, F], T (three), [T, F]
        (TWO, "只有①正确时，②才正确。"),
        (TWO, "只有①正确时②才正确。"),
        (TWO, "如果①正确，那么②正确。"),
        (TWO, "若②错误，则①也错误。"),
        (ONE, "如果这个说法正确，那么0就是最小的自然数。"),
        (ONE, "假设这个说法是对的，则1也是自然数。"),
        (ONE, "当x>0时，这个说法正确。"),
        (TWO, "If statement 1 is true, then statement 2 is false."),
    ],
)
def test_a_verdict_inside_a_condition_is_none(question: Question, output: str) -> None:
    found = extract(question, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


@pytest.mark.parametrize(
    ("question", "output", "verdicts"),
    [
        # the answer's own verdict beside a condition (unread before: the condition's verdict disagreed with it)
        (ONE, "如果这个说法正确，那么x>0，但x<0，所以说法错误。", [False]),
        (TWO, "①正确。若②错误，则①也错误，所以②正确。", [True, True]),
        (ONE, "Let's check whether it is true: 3+4=8 is wrong, so the statement is false.", [False]),
        # a condition's consequence is its next clause only (the CK12 analyses' shapes): read before and now
        (ONE, "一旦被识破，他就难以在社会上立足，其结果既伤害别人，也伤害自己，题干说法错误。", [False]),
        (ONE, "所以当合法权益受到侵害时，消费者可以选择直接向人民法院起诉，人民法院必须受理，说法是错误的。", [False]),
        # 只有…才 with 才 right after the statement named is "only", no condition: read before and now
        (TWO, "只有②才正确。", [False, True]),
        # a concession asserts its consequence; "provided" without "that" is a participle: read before and now
        (ONE, "即使x>0，这个说法也是错误的。", [False]),
        (ONE, "Even if x>0, the statement is false.", [False]),
        (ONE, "The information provided is correct.", [True]),
    ],
)
def test_the_answers_verdict_beside_a_condition_is_read(question: Question, output: str, verdicts: list[bool]) -> None:
    found = extract(question, output)
    assert (found.status, found.answer) == ("ok", verdicts), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        # read as T before: the verb "correct", a purpose, an inverted question, an adjective before its noun
        "Let's correct this.",
        "Let me correct the calculation: 3+4=7.",
        "We need to correct the sign.",
        "To be correct, we need x>0.",
        "to be correct we need x>0.",
        "For the statement to be true, x must be positive.",
        "Is it true that x>0",
        "Is statement 1 true or not",
        "Correct spelling: teacher.",
    ],
)
def test_an_english_verdict_word_outside_a_verdicts_place_is_none(output: str) -> None:
    found = extract(ONE, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


@pytest.mark.parametrize(
    ("output", "verdict"),
    [
        # the answer's verdict beside such a word: unread before (two verdicts disagreed), or T (the adjective first)
        ("Let's correct this. The statement is false.", False),
        ("Is it true that x>0? No, so the statement is false.", False),
        ("To be correct, we need x>0. Since x<0, the statement is false.", False),
        ("Correct spelling: teacher. So the statement is false.", False),
        # verdicts as before
        ("Correctly, the answer is 5. So it is false.", False),
        ("The statement appears to be correct.", True),
        ("It seems to be true.", True),
        ("True because 3+4=7.", True),
        ("Incorrect due to the error in step 5.", False),
        ("You are correct.", True),
        ("1. True.", True),
    ],
)
def test_the_english_verdict_beside_them_is_read(output: str, verdict: bool) -> None:
    found = extract(ONE, output)
    assert (found.status, found.answer) == ("ok", [verdict]), (output, found)


def test_a_solutions_steps_are_no_statements() -> None:
    # MR-GSM8K's real evaluations by Claude 2 and Llama-2-70B grade a solution step by step ("Step 1: Correct"):
    # "Step 1" was statement 1's label, and 89 of the 439 evaluations read disagreed with the evaluator's own verdict
    graded = "Step 1: Correct\nStep 2: Incorrect calculation here.\nStep 3: Incorrect\n\nFinal Judgement: wrong"
    assert extract(ONE, graded).answer is None  # [True] before: step 1's verdict
    two = extract(TWO, "Step 1: Correct\nStep 2: Correct\nStep 3: Incorrect")
    assert (two.status, two.answer) == ("unparsed", None)  # [True, True] before
    # statements labelled as before; steps whose verdicts all agree with the answer's
    assert extract(TWO, "Statement 1: True\nStatement 2: False").answer == [True, False]
    assert extract(ONE, "Step 1: Correct\nStep 2: Correct\nSo the statement is correct.").answer == [True]
