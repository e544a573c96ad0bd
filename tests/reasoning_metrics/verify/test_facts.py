"""The ``facts`` detector: facts about numbers, formulas and unit conversions a step states, true and false.

Every case is a true statement and its false twin, written here (no CK12 text)."""

from __future__ import annotations

import time

import pytest

from reasoning_metrics.verify.detector import Evidence
from reasoning_metrics.verify.detectors.facts import Facts
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.arithmetic import check_steps
from reasoning_metrics.verify.rules.conversions import stated_conversions
from reasoning_metrics.verify.rules.facts import stated_facts
from reasoning_metrics.verify.rules.formulas import stated_formulas

NUMBER_FACTS = [
    ("11是质数", "10是质数"),
    ("7是质数", "9是质数"),
    ("97是质数", "91是质数"),
    ("十三是素数", "十五是素数"),
    ("10是合数", "11是合数"),
    ("1不是质数", "2不是质数"),
    ("21不是质数", "23不是质数"),
    ("1不是合数", "4不是合数"),
    ("因为2、3和5都是质数", "因为2、9和5都是质数"),
    ("2是偶数", "3是偶数"),
    ("0是偶数", "0是奇数"),
    ("15是奇数", "14是奇数"),
    ("-3是奇数", "-3是偶数"),
    ("12能被4整除", "12能被5整除"),
    ("14不能被3整除", "15不能被3整除"),
    ("3能整除27", "4能整除27"),
    ("36是9的倍数", "36是5的倍数"),
    ("6是24的因数", "7是24的因数"),
    ("-4是整数", "2.5是整数"),
    ("$$\\frac{8}{4}$$是整数", "$$\\frac{7}{4}$$是整数"),
    ("49是完全平方数", "48是完全平方数"),
    ("15 is odd", "15 is even"),
    ("91 is not prime", "97 is not prime"),
    ("12 is divisible by 4", "12 is divisible by 5"),
    ("9 is a perfect square", "8 is a perfect square"),
]
FORMULAS = [
    ("长为5，宽为3的长方形面积为15", "长为5，宽为3的长方形面积为8"),
    ("长为5cm，宽为3cm的长方形的周长为16cm", "长为5cm，宽为3cm的长方形的周长为15cm"),
    ("边长为4的正方形面积是16", "边长为4的正方形面积是8"),
    ("底为6、高为4的三角形面积为12", "底为6、高为4的三角形面积为24"),
    ("底为6、高为4的三角形面积=6×4÷2=12", "底为6、高为4的三角形面积=6×4=24"),
    ("半径为3的圆的面积为9π", "半径为3的圆的面积为6π"),
    ("半径为3的圆的面积约为28.26", "半径为3的圆的面积约为18.84"),
    ("直径为10的圆的周长为10π", "直径为10的圆的周长为5π"),
    ("上底为3，下底为5，高为4的梯形面积为16", "上底为3，下底为5，高为4的梯形面积为32"),
    ("棱长为3的正方体体积为27", "棱长为3的正方体体积为9"),
    ("长5、宽4、高3的长方体体积为60", "长5、宽4、高3的长方体体积为47"),
    ("五边形的内角和为540°", "五边形的内角和为720°"),
    ("六边形内角和=(6-2)×180°=720°", "六边形内角和=(6-1)×180°=900°"),
    ("三角形内角和为180°", "三角形内角和为360°"),
    ("正六边形每个内角为120°", "正六边形每个内角为108°"),
    ("八边形的外角和为360°", "八边形的外角和为1080°"),
    ("8人两两握手，共握手28次", "8人两两握手，共握手4次"),
    ("6支球队进行单循环比赛，共比赛15场", "6支球队进行单循环比赛，共比赛30场"),
    ("$$C(5,2)=10$$", "$$C(5,2)=20$$"),
    ("$$A_{5}^{2}=20$$", "$$A_{5}^{2}=10$$"),
    ("A triangle with base 6 and height 4 has area 12", "A triangle with base 6 and height 4 has area 24"),
    ("The interior angles of a hexagon sum to 720", "The interior angles of a hexagon sum to 540"),
]
CONVERSIONS = [
    ("1千米=1000米", "1千米=100米"),
    ("2小时=120分钟", "2小时=100分钟"),
    ("3kg=3000g", "3kg=300g"),
    ("$$1{m}^{2}=10000{cm}^{2}$$", "$$1{m}^{2}=100{cm}^{2}$$"),
    ("36km/h=10m/s", "36km/h=36m/s"),
    ("1.5吨=1500千克", "1.5吨=150千克"),
    ("1L=1000mL", "1L=100mL"),
    ("$$1t={10}^{3}kg={10}^{6}g$$", "$$1t={10}^{3}kg={10}^{5}g$$"),
    ("1 km = 1000 m", "1 km = 100 m"),
]
NOT_STATED = [
    "若10是质数，则它只有两个因数",  # a hypothesis
    "假设15是质数",
    "n是质数，所以n>1",  # a variable
    "2k+1是奇数",
    "13是质数的倍数吗",  # not a fact about 13
    "2 is a prime factor of 10",
    "3m=6",  # algebra: m is an unknown here
    "阴影部分的面积为12，圆的半径为3",  # the area of another figure
    "$$C_{4}^{1}\\cdot A_{4}^{4}=96$$",  # a factor of a product
    "长为5，宽为3的长方形面积为5×3",  # a calculation, for the arithmetic check
]


def _holds(text: str) -> list[bool]:
    return [f.holds for f in stated_facts(text) + stated_formulas(text) + stated_conversions(text)]


@pytest.mark.parametrize(("true", "false"), NUMBER_FACTS + FORMULAS + CONVERSIONS)
def test_a_true_statement_holds_and_its_false_twin_does_not(true: str, false: str) -> None:
    assert _holds(true) and all(_holds(true)), true
    assert _holds(false) and not all(_holds(false)), false


def test_the_table_is_mostly_chinese() -> None:
    chinese = [t for t, _ in NUMBER_FACTS + FORMULAS + CONVERSIONS if any("\u4e00" <= c <= "\u9fff" for c in t)]
    assert len(chinese) >= 30


@pytest.mark.parametrize("text", NOT_STATED)
def test_hypotheses_variables_and_other_figures_state_nothing(text: str) -> None:
    assert _holds(text) == []


def test_the_detector_flags_the_step_with_the_false_statement_by_its_kind() -> None:
    steps = ["8人两两握手。", "10是质数，所以...", "共握手8÷2=4次", "8人两两握手，共握手4次", "1千米=100米"]
    found = Facts().find(Evidence("8人握手，每两人握一次，共握手几次？", steps, check_steps(steps))).steps
    assert [[f.kind for f in flags] for flags in found] == [
        [],
        [FlagKind.FALSE_FACT],
        [],
        [FlagKind.WRONG_FORMULA],
        [FlagKind.WRONG_FORMULA],
    ]
    assert "10 = 2 × 5" in found[1][0].message and "28" in found[3][0].message


def test_huge_and_long_inputs_are_answered_quickly() -> None:
    hostile = [
        "1" * 5000 + "是质数",
        "、".join(["7"] * 5000) + "都是质数",
        "$$1t={10}^{999}kg$$",
        "长为" + "9" * 400 + "，宽为3的长方形面积为1",
        "正" + "9" * 50 + "边形每个内角为1°",
        "面积为" + "1×" * 5000 + "1",
    ]
    for text in hostile:
        started = time.process_time()  # CPU time of this process: other jobs on a busy machine do not count (#37)
        _holds(text)
        assert time.process_time() - started < 1.0, text[:40]
