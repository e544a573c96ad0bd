"""Judgment answers a Chinese model writes that name their verdict indirectly (judgment audit 2): a negated verdict
word (不是错误的, 并非正确, 没有错) and one verdict for a group of statements (①③正确, 第1、3个说法正确, 1和3对).
A negation is read as the verdict it states, a hedge (不一定正确) as none; never the word it negates."""

from __future__ import annotations

import pytest

from runners.extract import extract
from tests.qfactory import judgment

ONE = judgment(["0是最小的自然数"], [True])
THREE = judgment(["质数都是奇数", "1不是质数", "2是偶数"], [False, True, True])
FOUR = judgment(
    ["对顶角相等", "错角一定相等", "两直线平行，同旁内角相等", "三角形内角和为180度"], [True, False, False, True]
)


@pytest.mark.parametrize(
    ("output", "verdict"),
    [
        ("这个说法不是错误的。", True),  # read as 错误 (F) before: the opposite of what it says
        ("这个说法并不是错误的，0是最小的自然数。", True),
        ("这个说法并非正确。", False),
        ("这个说法不是对的。", False),
        ("这句话不是正确的，最小的自然数是0吗？", False),
        ("这个说法没有错。", True),
        ("没错，0是最小的自然数。", True),
        ("这个说法没有错误。", True),
        ("这个说法不是不正确的。", True),
        ("这种说法不对。", False),
        ("这个说法对吗？不是\n错误。", False),  # a reply, then the verdict on its own line: no negation of it
        ("The statement is not wrong.", True),
        ("This isn't false.", True),
    ],
)
def test_a_negated_verdict_is_the_verdict_it_states(output: str, verdict: bool) -> None:
    found = extract(ONE, output)
    assert (found.status, found.answer) == ("ok", [verdict]), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        # A hedge states no verdict (read as the word it hedges before: 正确 for 不一定正确).
        "这个说法不一定正确。",
        "这个说法不完全正确。",
        "这个说法未必对。",
        "这个说法不是完全错误的。",
        "这个说法不够正确。",
        "这个说法不十分正确。",
        "这个说法不是绝对正确的。",
        "This is not necessarily true.",
        # A question is none: 是不是正确 held 不是正确 (F), 对不对 held 不对 (F).
        "这个说法是不是正确的？",
        "这个说法对不对？",
    ],
)
def test_a_hedged_or_questioned_verdict_is_none(output: str) -> None:
    found = extract(ONE, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


@pytest.mark.parametrize(
    ("output", "verdicts"),
    [
        ("1. 不是错误的 2. 不对 3. 没错", [True, False, True]),
        (
            "第一个说法并非正确，因为2是偶数质数；第二个说法没有错，1不是质数；第三个说法不是错误的。",
            [False, True, True],
        ),
        ("1. 不是对的\n2. 不是错的\n3. 并非错误", [False, True, True]),
    ],
)
def test_negated_verdicts_go_to_their_statements(output: str, verdicts: list[bool]) -> None:
    found = extract(THREE, output)
    assert (found.status, found.answer) == ("ok", verdicts), (output, found)


TFTF = [True, False, True, False]


@pytest.mark.parametrize(
    ("output", "verdicts"),
    [
        ("①③正确，②④错误", TFTF),
        ("说法①③正确，说法②④错误", TFTF),
        ("①、④正确；②和③错误", [True, False, False, True]),
        ("（1）（3）正确，（2）（4）错误", TFTF),
        ("第1、3个说法正确，第2、4个错误", TFTF),
        ("第1和第3个说法都是正确的，第2、4个说法是错误的", TFTF),
        ("第一、四个说法正确，第二、三个说法错误", [True, False, False, True]),
        ("说法一、三正确，说法二、四错误", TFTF),
        ("1和3对，2和4错", TFTF),
        ("1、2对，3、4错", [True, True, False, False]),  # CK12's analyses write "1、2对，3错"
        ("1、3不对，2、4没错", [False, True, False, True]),
        ("①③②正确，④错误", [True, True, True, False]),
    ],
)
def test_a_verdict_goes_to_every_statement_of_its_group(output: str, verdicts: list[bool]) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer, found.rule) == ("ok", verdicts, "numbered"), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        "①③正确，②错误",  # ④ has no verdict
        "①③正确，②④错误，③错误",  # ③ given two
        "①③正确，③④错误",
        "第1、3个说法正确，第2个错误",
        "1和3对，2错",
        "1.  2.  3.  4. 正确",  # the prompt's format echoed, one verdict: no group (a space joins nothing)
        "1和3的和是4，正确",  # numbers of the prose, not statements
    ],
)
def test_a_statement_of_no_group_or_two_leaves_the_answer_unparsed(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


def test_multiplied_numbers_are_no_group() -> None:
    """A CK12 analysis (数学, gold 正确) with no verdict: "2×2及3×3" read as statements 2 and 3, × as their verdict,
    was F."""
    output = "假设用$$2\\times 2$$及$$3\\times 3$$的正方形地板砖可以铺满，矛盾．所以都不能铺满．"
    assert extract(ONE, output).status == "unparsed"


# One verdict for all the statements (judgment audit 3): a quantifier over them ("以上说法都正确", "全都错误") gives
# each statement that verdict, a negated one ("没有一个说法是正确的") each the opposite, when nothing else in the
# answer gives a statement another verdict. "没有一个说法是正确的" was T (its 正确), "没有一个是错误的" F.
ALL_TRUE, ALL_FALSE = [True] * 4, [False] * 4


@pytest.mark.parametrize(
    ("output", "verdicts"),
    [
        ("没有一个说法是正确的。", ALL_FALSE),
        ("以上说法都不正确。", ALL_FALSE),
        ("全都错误。", ALL_FALSE),
        ("以上说法都正确。", ALL_TRUE),
        ("四个说法全对。", ALL_TRUE),
        ("均正确。", ALL_TRUE),
        ("所有说法都是错误的。", ALL_FALSE),
        ("没有正确的。", ALL_FALSE),
        ("没有一个是错误的。", ALL_TRUE),
        ("以上说法都没有错。", ALL_TRUE),
        ("以上四个说法中没有一个是对的。", ALL_FALSE),
        ("综上所述，这四个说法都是正确的。", ALL_TRUE),
        ("上述说法均不正确，理由如下：质数2是偶数……", ALL_FALSE),
        ("1. 错误\n2. 错误\n3. 错误\n4. 错误\n所以以上说法都是错误的。", ALL_FALSE),  # agreeing verdicts
        ("没有说法是正确的。", ALL_FALSE),
        ("以上说法中，没有一个是正确的。", ALL_FALSE),
        ("这些说法都不是正确的。", ALL_FALSE),
        ("答案：都对", ALL_TRUE),
    ],
)
def test_a_verdict_for_all_statements_goes_to_each(output: str, verdicts: list[bool]) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("ok", verdicts), (output, found)


@pytest.mark.parametrize(
    ("output", "verdict"),
    [("没有一个说法是正确的。", False), ("没有一个是错误的。", True), ("以上说法都是对的。", True)],
)
def test_a_verdict_for_all_statements_of_one(output: str, verdict: bool) -> None:
    found = extract(ONE, output)
    assert (found.status, found.answer) == ("ok", [verdict]), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        "以上说法都正确。第二个说法错误。",  # another verdict for a statement: unclear, never one of them
        "1. 正确 2. 错误 3. 错误 4. 正确\n以上说法都不正确。",
        "以上说法都正确，没有一个是正确的。",
        "三个说法都正确。",  # three of four
        "以上说法不都正确。",  # not all: a hedge
        "以上说法并非都是错误的。",
        "第一个说法没有错。",  # one statement's verdict, no quantifier
        "①③都正确。",  # a group, not all
        "其中没有一个是错误的吗？",
        "没有一个说法是完全正确的。",  # a hedge denied: no verdict (its 正确 was T)
        "没有一个说法是一定正确的。",
    ],
)
def test_a_verdict_for_all_statements_that_is_unclear_leaves_it_unparsed(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


# "The others" (其余, 其他, 剩下的) name the statements no label names (judgment audit 3).
@pytest.mark.parametrize(
    ("output", "verdicts"),
    [
        ("①③正确，其余错误。", TFTF),
        ("①③正确，其他都错。", TFTF),
        ("②④错误，其余的说法是对的。", TFTF),
        ("第1个说法正确，其余三个说法都是错误的。", [True, False, False, False]),
        ("第2个说法错误，其他说法都正确。", [True, False, True, True]),
        ("①③正确。其余的不正确。", TFTF),
        ("第一个说法正确，第二个说法错误，其余两个说法也都是错误的。", [True, False, False, False]),
        # each discussed, then a summary: the others are those its line does not name
        (
            "1. 正确。\n2. 错角不一定相等，错误。\n3. 错误。\n4. 正确。\n综上，①④正确，其余错误。",
            [True, False, False, True],
        ),
        ("1和3对，剩下的都错", TFTF),
        # "the other one": the one statement not named (unparsed before, with those named)
        ("第1个说法正确，第3个说法错误，第2个说法错误，另外一个说法正确", [True, False, False, True]),
    ],
)
def test_the_others_are_the_statements_not_named(output: str, verdicts: list[bool]) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("ok", verdicts), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        "①②③④正确，其余错误。",  # no statement is left to the others
        "①正确，其余两个说法错误。",  # three are left, not two
        "①③正确，其余错误，④正确。",  # ④ given two verdicts
        "1. 正确\n2. 正确\n3. 错误\n4. 正确\n综上，①④正确，其余错误。",  # ② was 正确
        "其余错误，①③正确。",  # the others of none named before them
        "①③正确，其余错误，其他正确。",
        "其余错误。",  # no statement named: the others are all of them or none
        "以上说法都正确，其余错误。",
    ],
)
def test_the_others_that_leave_a_statement_unclear_leave_it_unparsed(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


def test_a_hedge_denied_for_one_statement_is_none() -> None:
    """ "没有一个说法是完全正确的" read its 正确 as T: the opposite of what it says."""
    assert extract(ONE, "没有一个说法是完全正确的。").status == "unparsed"


def test_a_long_blank_before_a_verdict_for_all_is_read() -> None:
    """A masked formula leaves a run of spaces; optional spaces between the quantifier's words backtracked on it
    (50 spaces took 4 s, 300 would not end)."""
    assert extract(FOUR, " " * 300 + "\n以上说法都正确。").answer == ALL_TRUE


def test_a_masked_formula_before_a_verdict_for_some_is_no_clause_start() -> None:
    """A CK12 analysis: "因而 $$\\rm A、B、D$$ 均错误" names three statements in a formula; its blank is no start of a
    clause, so 均错误 is no verdict for all."""
    assert extract(FOUR, "因而 $$\\rm A、B、D$$ 均错误。").answer != ALL_FALSE
