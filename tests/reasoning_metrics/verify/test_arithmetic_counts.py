"""A count of things is raised or cut (进一法, 去尾法), not only rounded: the rule of
:func:`reasoning_metrics.verify.rules.arithmetic.counts_things`, written from how primary school teaches the
近似数 of a quotient before it was measured on any labelled set.

The rule: an ``≈`` whose calculating side is a quotient and whose other side is a whole number written without
decimals is right when that number is the quotient's floor or ceiling, if the number is followed by a count unit
(个, 辆, 人, 条, 只, 本, 箱, 盒, 次, 天, 张, 件, 组, 瓶, 袋, 套, 台, 棵, 份 ...) or the question asks how many whole
things (最多, 最少, 至多, 至少, 能/可以/够 … 几, the greatest or least 整数/自然数). ``=`` claims, numbers with
decimals, measures (米, 元, 小时) and other calculations than a quotient stay rounded to the digits written.
Every example is written here, in the textbooks' forms; none is taken from a data set.
"""

from __future__ import annotations

import pytest

from reasoning_metrics.verify.rules.arithmetic import Verdict, asks_count, check_step, check_steps


def checked(steps: list[str], question: str = "") -> list[str]:
    return [
        c.verdict.value for s in check_steps(steps, question) for c in s.claims if c.verdict is not Verdict.UNCHECKED
    ]


@pytest.mark.parametrize(
    "text",
    [
        "25÷1.5≈16（个）",  # 去尾法: 16.67 ribbons' worth of gift boxes, 16 boxes wrapped
        "10÷3≈4（个）",  # 进一法: 3.33 bottles' worth of oil, 4 bottles
        "45÷40≈2（辆）",
        "37÷5≈8（条）",  # 7.4 boats' worth of people, 8 boats
        "50÷15≈3盒",
        "45÷40≈2辆车，",
        r"$$1580\div 99\approx 15$$（个），",  # 15.96: cut, the unit after the formula
        r"$$\frac{25}{1.5}\approx 16$$（个）",
        "100÷30≈4（天）",
        "(500-20)÷99≈4（个）",
    ],
)
def test_a_count_after_a_quotient_may_be_raised_or_cut(text: str) -> None:
    assert [c.verdict.value for c in check_step(text) if c.verdict is not Verdict.UNCHECKED] == ["true"]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("45÷40≈3（辆）", "neither the floor nor the ceiling"),
        ("25÷1.5≈15（个）", "neither the floor nor the ceiling"),
        ("45÷40=2（辆）", "an = claim is the value, rounded"),
        ("25÷1.5=16（个）", "an = claim is the value, rounded"),
        ("25÷1.5≈16（米）", "a measure, not a count"),
        ("25÷1.5≈16（元）", "money, not a count"),
        ("100÷30≈4（小时）", "a measure of time, not a count"),
        ("7÷3≈2.4（个）", "a number with decimals is rounded"),
        ("3×2.6≈7（个）", "a product, not a quotient"),
        ("25÷1.5≈16", "no unit, no question"),
    ],
)
def test_what_is_not_a_count_stays_rounded(text: str, why: str) -> None:
    assert [c.verdict.value for c in check_step(text) if c.verdict is not Verdict.UNCHECKED] == ["false"], why


@pytest.mark.parametrize(
    ("question", "steps"),
    [
        ("一根彩绳长25米，每个礼盒用1.5米，这根彩绳能包装几个礼盒？", ["25÷1.5≈16"]),
        ("每瓶装2.5千克，12千克油可以装满几瓶？", ["12÷2.5≈4"]),
        ("每只船至多坐5人，37人要坐船。", ["37÷5≈8"]),
        ("每个篮球99元，560元够买几个篮球？", ["560÷99≈5"]),
        # the greatest whole number: how many multiples of 27 there are among 1 to 500 is 500÷27 cut
        ("设1×2×…×500=3^n×A，A是正整数，n是自然数，n的最大值是多少？", ["500÷3^3≈18"]),
    ],
)
def test_a_question_asking_how_many_whole_things_makes_a_count(question: str, steps: list[str]) -> None:
    assert checked(steps, question) == ["true"]


@pytest.mark.parametrize(
    ("question", "steps"),
    [
        ("一根彩绳长25米，每个礼盒用1.5米，这根彩绳能包装几个礼盒？", ["25÷1.5=16"]),  # = stays strict
        ("一根彩绳长25米，每个礼盒用1.5米，这根彩绳能包装几个礼盒？", ["25÷1.5≈15"]),
        ("每瓶装2.5千克，12千克油可以装满几瓶？", ["2.5×1.7≈5"]),  # not a quotient
        ("一个长方形的长是25米，面积是多少？", ["25÷1.5≈16"]),  # no count asked
        ("函数的最大值是多少？", ["25÷1.5≈16"]),  # an extreme, but of no whole number
    ],
)
def test_a_question_gives_no_slack_beyond_a_count(question: str, steps: list[str]) -> None:
    assert checked(steps, question) == ["false"]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("这根彩绳最多能包装几个礼盒？", True),
        ("至少需要几辆车？", True),
        ("这些钱够买几个？", True),
        ("可以装满几瓶？", True),
        ("正整数n的最小值是多少？", True),
        ("求这个数。能被3整除吗？", False),  # 能 … with no 几 in the clause
        ("能。几个人都去了", False),  # a full stop between 能 and 几
        ("几何图形的面积是多少？", False),
        ("函数的最大值是多少？", False),
    ],
)
def test_which_questions_ask_for_a_count(question: str, asks: bool) -> None:
    assert asks_count(question) is asks
