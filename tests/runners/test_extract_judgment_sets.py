"""Judgment answers that give one verdict for the whole set, a set but the ones named ("only"), or name an exception
(judgment audit 4): whole-set negations ("一个正确的都没有", "一个也不对"), a quantifier after the answer's own stance
("我认为以上说法全部正确"), "只有②正确", and English quantifiers. Each is read as it says, or left unparsed."""

from __future__ import annotations

import pytest

from runners.extract import extract
from tests.qfactory import judgment
from tests.runners.test_extract_judgment_forms import FOUR

ALL_TRUE, ALL_FALSE = [True] * 4, [False] * 4


@pytest.mark.parametrize(
    ("output", "verdicts"),
    [
        # none is: unparsed before (no verdict word at a clause end)
        ("一个正确的都没有。", ALL_FALSE),
        ("一个对的也没有。", ALL_FALSE),
        ("连一个正确的都没有。", ALL_FALSE),
        ("正确的一个也没有。", ALL_FALSE),
        ("正确的说法一个都没有", ALL_FALSE),
        ("一个错误的都没有。", ALL_TRUE),
        ("这四个说法一个正确的都没有。", ALL_FALSE),
        ("以上说法中一个正确的都没有。", ALL_FALSE),
        ("一个也不对。", ALL_FALSE),
        ("一个都不正确。", ALL_FALSE),  # read as "each of one" (一个) before: a count not the statements'
        ("以上说法一个都不对。", ALL_FALSE),
        ("一个都没有错。", ALL_TRUE),
        ("以上说法都错了。", ALL_FALSE),
        # after the answer's own stance
        ("我认为以上说法全部正确。", ALL_TRUE),
        ("经过分析，我认为这些判断都是错的。", ALL_FALSE),
        ("可以判断上述说法都是正确的。", ALL_TRUE),
        ("因此我认为四个说法都不对。", ALL_FALSE),
        ("综上所述，我们可以得出以上说法都正确。", ALL_TRUE),
        # the question's statements named by the question
        ("这道题的四个说法都是错误的。", ALL_FALSE),
        ("本题中的说法全部正确。", ALL_TRUE),
        ("题目给出的说法都正确。", ALL_TRUE),
        ("所给的四个说法都对。", ALL_TRUE),
        # English
        ("None of them is true.", ALL_FALSE),
        ("None of the four statements are correct.", ALL_FALSE),
        ("All of them are false.", ALL_FALSE),
        ("All four statements are true.", ALL_TRUE),
        ("The statements are all false.", ALL_FALSE),
        ("So I think they are all true.", ALL_TRUE),
        ("They are all true statements.", ALL_TRUE),
        ("All four statements are true because each follows from the definitions.", ALL_TRUE),
    ],
)
def test_a_verdict_for_the_whole_set_goes_to_each(output: str, verdicts: list[bool]) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer, found.rule) == ("ok", verdicts, "all"), (output, found)


@pytest.mark.parametrize(
    ("output", "verdicts"),
    [
        ("只有②正确。", [False, True, False, False]),
        ("上述四个说法中只有②正确。", [False, True, False, False]),
        ("只有②和③正确", [False, True, True, False]),
        ("只有第二个说法是正确的。", [False, True, False, False]),
        ("只有第二个说法才是正确的。", [False, True, False, False]),  # 才 stresses it (unread before)
        ("只有②才正确，其余都错误。", [False, True, False, False]),
        ("四个说法中只有②是错误的。", [True, False, True, True]),
        ("只有第2个说法是正确的，其余都是错误的。", [False, True, False, False]),
        ("1. 错误 2. 正确 3. 错误 4. 错误\n所以只有②正确。", [False, True, False, False]),
        ("Only statement 2 is true.", [False, True, False, False]),
        ("Only the first is true.", [True, False, False, False]),
    ],
)
def test_only_the_statements_named_have_the_verdict(output: str, verdicts: list[bool]) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("ok", verdicts), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        "只有当x>0时②才正确。",  # a condition, no "only"
        "只有①正确，才能推出④。",  # 只有…才: only if, a condition (read as ① true, the others false before)
        "只有①是正确的，其余说法才有意义。",
        "Only statement 2 is true if the lines are parallel.",
        "①正确，只有②正确。",  # ① given two verdicts
        "只有②正确，③也正确。",
        "三个说法中只有②正确。",  # three, of four
        "只有②正确吗？",
        "以上说法中只有一个正确。",  # which one is not said
        "1. 正确 2. 正确 3. 错误 4. 错误\n所以只有②正确。",
        # an exception: 除了…都 excludes, 除了…也 adds; read as all true before (① too)
        "除了①以外，以上说法全部正确。",
        "除①外，以上说法都正确。",
        "除了①，②也是正确的。",
        "除了第1个，其余都对。",
        "Except statement 1, all of them are true.",
        "Except for the first, all of them are true.",
        "All are correct except the first.",
        "都正确，除了①。",
        "以上说法除①外都正确。",
        # a pair of four: read as all four before
        "两者都正确。",
        "Both are true.",
        # not all, or a stance not the answer's own, or a condition
        "不是所有说法都正确。",
        "我不认为以上说法都正确。",
        "你可能认为以上说法都正确，但②错误。",
        "有人认为这些说法都对。",
        "如果以上说法都正确，那么结论成立。",
        "我认为以上说法都正确吗？",
        "Not all of them are true.",
        "All are not true.",  # not all, or none
        "None of them are necessarily true.",
        "None of them is entirely true.",  # a hedge denied: no verdict
        "一个也不一定对。",
        "1. 正确 2. 错误 3. 错误 4. 正确\n以上说法一个都不对。",
        # a question, not the answer's verdict: read as each false before (the pattern ends at 没有, past its verdict)
        "一个正确的都没有吗？",
        "一个正确的都没有？我们逐一看：对顶角相等，错角不一定相等。",
        "正确的一个也没有吗？",
        "一个正确的都没有呢？",
        # English questions: read as each one's verdict before
        "None of them is true?",
        "All four statements are true?",
        "They are all false?",
        "Only statement 2 is true?",
        "只有②正确？",
        # an English verdict word before another noun is an adjective: read as each true before
        "These are all correct calculations.",
        "We add 90+90=180 and 45+135=180: they are all correct computations, but statement 2 and 3 need care.",
        "只有②是正确的？",
    ],
)
def test_an_exception_or_an_unclear_set_leaves_it_unparsed(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


def test_a_division_is_no_exception() -> None:
    """除以 divides: no statement is excepted, the quantifier is read."""
    assert extract(FOUR, "除以2得1，所以以上说法都正确。").answer == ALL_TRUE


def test_a_pair_is_both_statements_of_two() -> None:
    two = judgment(["2是质数", "3是质数"], [True, True])
    assert extract(two, "两者都正确。").answer == [True, True]
    assert extract(two, "They are both false.").answer == [False, False]
