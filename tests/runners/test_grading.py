"""Grading per question type, fill-in normalisation, and where k12eval departs from CK12's released scorer."""

from __future__ import annotations

import pytest

from runners.ck12_release import release_fill_correct
from runners.fillin import blank_matches, normalize_blank
from runners.grading import Grade, grade
from tests.qfactory import cloze, fill, judgment, multiple, single, sorting


def test_choice_and_sorting_are_exact() -> None:
    assert grade(single(), ["B"]) == Grade(True)
    assert grade(single(), ["C"]) == Grade(False)
    assert grade(single(), ["B", "C"]) == Grade(False)
    assert grade(multiple(), ["D", "B", "A"]) == Grade(True)  # a set: order does not matter
    assert grade(multiple(), ["A", "B"]) == Grade(False)  # a subset is wrong
    assert grade(multiple(), ["A", "B", "C", "D"]) == Grade(False)
    question = sorting(["a", "b", "c"], "CAB")
    assert grade(question, ["C", "A", "B"]).correct
    assert not grade(question, ["C", "B", "A"]).correct


def test_unparsed_is_wrong_with_zero_partial_where_the_type_has_one() -> None:
    assert grade(single(), None) == Grade(False, None)
    assert grade(judgment(["x", "y"], [True, False]), None) == Grade(False, 0.0)
    assert grade(fill(["1"]), None) == Grade(False, 0.0)


def test_judgment_per_statement_with_partial_credit() -> None:
    question = judgment(["a", "b", "c", "d"], [True, False, True, True])
    assert grade(question, [True, False, True, True]) == Grade(True, 1.0)
    assert grade(question, [True, True, True, True]) == Grade(False, 0.75)
    # Missing verdicts count as wrong (the release zips them away and never counts them).
    assert grade(question, [True, False]) == Grade(False, 0.5)


def test_cloze_blank_by_blank() -> None:
    question = cloze([["a", "b"], ["c", "d"], ["e", "f"]], "ABA")
    assert grade(question, ["A", "B", "A"]) == Grade(True, 1.0)
    mixed = grade(question, ["A", "A", "A"])
    assert not mixed.correct and mixed.partial == pytest.approx(2 / 3)


def test_fill_in_blank_by_blank_with_partial_credit() -> None:
    question = fill(["右", "$$1$$"])
    assert grade(question, ["右", "1"]) == Grade(True, 1.0)
    assert grade(question, ["左", "1"]) == Grade(False, 0.5)
    assert grade(question, ["右"]) == Grade(False, 0.5)
    assert grade(question, ["右", "1", "多余"]) == Grade(False, 1.0)


SAME = [
    ("0.5", "$$\\frac{1}{2}$$"),
    ("1/2", "0.5"),
    ("3/4", "\\dfrac{3}{4}"),
    ("0.33", "$$\\frac{1}{3}$$"),
    ("0.67", "\\frac{2}{3}"),
    ("-0.5", "$$-\\frac{1}{2}$$"),
    ("10/3", "$$3\\frac{1}{3}$$"),
    ("50", "50cm"),
    ("50cm", "50"),
    ("50 cm", "$$50\\text{cm}$$"),
    ("5N", "$$5$$"),
    ("3个", "3"),
    ("2m/s", "2"),
    ("45", "45%"),
    ("60°", "$$60^{\\circ}$$"),
    ("１２", "12"),
    ("1 000", "1000"),
    ("1,000", "1000"),
    ("x^2", "$${{x}^{2}}$$"),
    ("x²", "x^{2}"),
    ("√2", "\\sqrt{2}"),
    ("a/b", "\\frac{a}{b}"),
    ("2", "$$x=2$$"),
    ("x=2", "2"),
    ("Take", "take"),
    ("右。", "右"),
    ("“刻板”", "刻板"),
    ("2x+1", "$$2x + 1$$"),
    ("\\left(1,2\\right)", "(1,2)"),
    ("π", "\\pi"),
    ("2-3=-1", "$$-1$$"),
    ("y=2x+1", "2x+1"),
    ("2x+1", "y=2x+1"),
    ("哥哥每分钟跑$$55$$米", "55"),
    # Order-free selections (#16 item 5): a gold listed in ascending order is a set of statements.
    ("⑤④", "④⑤"),
    ("⑤、④", "④⑤"),
    ("③，①", "①③"),
    ("答案是55", "55"),
    ("55米。", "55"),
    # A root the answer itself rejects is not part of it; one unit in two spellings (#26 item 6).
    ("x=5（x=-1不合题意，舍去）", "5"),
    ("$$x_1=5$$，$$x_2=-1$$（舍去）", "5"),
    ("x=5(x=-1舍去)", "$$5$$"),
    ("30度", "$$30^{\\circ}$$"),
    ("30°", "30度"),
    ("12厘米", "12cm"),
    ("2千克", "2kg"),
]
DIFFERENT = [
    ("0.3", "0.34"),  # 0.34 has a finite decimal: 0.3 is not it rounded
    ("0.3", "\\frac{1}{3}"),  # one decimal place is too coarse to stand for 1/3
    ("0.66", "\\frac{2}{3}"),
    ("50m", "50cm"),
    ("2", "2x"),
    ("21", "12"),
    ("1+2", "12"),
    ("", "0"),
    ("右", "左"),
    ("0.5", "50%"),
    ("x=3", "2"),
    ("2+3=6", "5"),
    ("第3个数是55", "55"),  # two numbers: which one is meant?
    ("哥哥每分钟跑的路程是五十五米，比弟弟多10米", "55"),
    # Negations and numbers that are operands, not answers (#16 item 5).
    ("不是12", "12"),
    ("x不等于3", "3"),
    ("$$x\\neq 3$$", "3"),
    ("x≠3", "3"),
    ("12不对", "12"),
    ("并非55", "55"),
    ("55的两倍", "55"),
    ("比55多", "55"),
    ("55的倒数", "55"),
    ("没有3个", "3"),
    # Bounds and ranges say where the number lies, not that it is the answer (#26 item 6).
    ("x>3", "3"),
    ("$$x\\gt 3$$", "3"),
    ("x≥3", "3"),
    ("大于3", "3"),
    ("至少12", "12"),
    ("至少要12个", "12"),
    ("不少于12", "12"),
    ("±3", "3"),
    ("$$\\pm 3$$", "3"),
    ("3左右", "3"),
    ("12以上", "12"),
    ("x=-1（舍去）", "-1"),  # the only root given is set aside: no answer
    ("30度", "30cm"),
    # A gold written out of order is an order: ①③⑤②④ is a sequence, not a set.
    ("①②③④⑤", "①③⑤②④"),
    ("④", "④⑤"),
    ("④⑤⑥", "④⑤"),
]


@pytest.mark.parametrize(("predicted", "gold"), SAME)
def test_blanks_that_say_the_same(predicted: str, gold: str) -> None:
    assert blank_matches(predicted, gold), (normalize_blank(predicted), normalize_blank(gold))


@pytest.mark.parametrize(("predicted", "gold"), DIFFERENT)
def test_blanks_that_differ(predicted: str, gold: str) -> None:
    assert not blank_matches(predicted, gold), (normalize_blank(predicted), normalize_blank(gold))


# Units written in the stem's own language (#23 item 4): the stem's blank, the answer written, the gold.
UNIT_CASES = [
    ("The pen costs $$\\underline{}$$ yuan.", "180 yuan", "180", True),
    ("The pen costs ____ yuan.", "180 yuan", "180元", True),
    ("一支笔 $$\\underline{}$$ 元。", "180 yuan", "$$180$$", True),
    ("一支笔 $$\\underline{}$$ 元。", "180元", "180 yuan", True),
    ("The rope is ____ cm long.", "12 cm", "12", True),
    ("The rope is ____ cm long.", "12厘米", "12cm", True),
    ("绳长 $$\\underline{}$$ $${cm}$$。", "12 厘米", "12", True),
    ("密度为 $$\\underline{}$$ $${g/cm}^{3}$$．", "0.8 g/cm^3", "$$0.8$$", True),
    ("Tom has ____ apples.", "5 apples", "5", True),
    ("Tom has ____ apples.", "5 pears", "5", False),  # not the stem's word
    ("The pen costs ____ yuan.", "180 dollars", "180", False),
    ("The rope is ____ cm long.", "12 m", "12cm", False),
    ("The rope is ____ cm long.", "12 mm", "12", True),  # a unit against a bare gold: ignored, as before
    ("一支笔 $$\\underline{}$$ 元。", "至少180元", "180", False),
]


@pytest.mark.parametrize(("stem", "written", "gold", "same"), UNIT_CASES)
def test_a_unit_in_the_stems_own_language(stem: str, written: str, gold: str, same: bool) -> None:
    assert grade(fill([gold], stem=stem), [written]).correct is same


def test_normal_form_of_latex() -> None:
    assert normalize_blank("$$\\dfrac{\\sqrt{3}}{2}$$") == "√3/2"
    assert normalize_blank("$$\\text{ 千克 }$$") == "千克"
    assert normalize_blank("ＡＢ　ｃ") == "abc"


def test_the_released_ck12_rule_and_its_single_blank_bug() -> None:
    # With one blank the release checks that each *character* of the gold occurs in the response.
    assert release_fill_correct(["12"], "答案是：21")
    assert release_fill_correct(["12"], "1+2")
    assert not grade(fill(["12"]), ["21"]).correct
    # With several blanks it checks that each blank occurs somewhere in the first sentence.
    assert release_fill_correct(["右", "1"], "答案是：向右平移1个单位")
    assert not release_fill_correct(["右", "2"], "答案是：向右平移1个单位")
