"""The question record: gold answers checked per type, language detection."""

from __future__ import annotations

import pytest

from kg.records import AnswerError, Option, QuestionType, check_answer, detect_language

ABCD = [Option(label=x, text=f"option {x}") for x in "ABCD"]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("方程$$2(x-3)=x+4$$的解是（  ）", "zh"),  # LaTeX letters are not English words
        ("$$\\frac{1}{2}+\\sqrt{x}$$等于多少", "zh"),
        ("Solve $$x+1=2$$ for x.", "en"),
        ("What is the capital of China?", "en"),
        ("Read the passage. 阅读短文，回答问题。The boy went to school.", "en"),
        ("下列说法正确的是", "zh"),
        # Found in the CK12 release, detected as English before (#16 item 1):
        ("$$-2017$$的倒数是(  )", "zh"),  # nothing but a formula and six characters
        ("已知$${{m}^{2}}+2mn=12$$，$$3mn+2{{n}^{2}}=20$$，则$$2{{m}^{2}}+13mn+6{{n}^{2}}-40$$的值为（   ）．", "zh"),
        ("已知a、b均a >b,则下列结论不正确的是", "zh"),  # bare variables are not words
        ("若直线x+y+m=0与圆x^2+y^2=m相切，则m=", "zh"),
        (
            "区别下列各组物质的方法正确的是（    ）\n\n$#table{|$$\\centerline{选项}centerlineendflag|$$\\centerline{方法}centerlineendflag|}",
            "zh",
        ),
        ("下列物质属于氧化物的是 A. KMnO4 B. NaCl C. H2O D. CaCO3", "zh"),  # labels and formulas
        ("根据句意填空: My grandmother doesn't have $$\\underline{}$$ apples, but she has oranges.", "en"),
    ],
)
def test_detect_language(text: str, lang: str) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize(
    ("qtype", "options", "answer"),
    [
        (QuestionType.SINGLE, ABCD, ["C"]),
        (QuestionType.MULTIPLE, ABCD, ["A", "D"]),
        (QuestionType.SORTING, ABCD, ["D", "A", "C", "B"]),
        (QuestionType.JUDGMENT, [Option(label="1", text="s1"), Option(label="2", text="s2")], [True, False]),
        (QuestionType.FILL, [], ["50", "0.8"]),
        (QuestionType.CLOZE, [Option(label=x, text=x, blank=b) for b in (1, 2) for x in "AB"], ["B", "A"]),
    ],
)
def test_valid_answers_pass(qtype: QuestionType, options: list[Option], answer: list[str] | list[bool]) -> None:
    check_answer(qtype, options, answer)


@pytest.mark.parametrize(
    ("qtype", "options", "answer", "message"),
    [
        (QuestionType.SINGLE, ABCD, ["E"], "not among the options"),
        (QuestionType.SINGLE, ABCD, ["A", "B"], "one letter"),
        (QuestionType.MULTIPLE, ABCD, ["D", "A"], "sorted"),
        (QuestionType.JUDGMENT, [Option(label="1", text="s1")], [True, False], "2 true/false answers for 1"),
        (QuestionType.JUDGMENT, [], ["T"], "true/false"),
        (QuestionType.SINGLE, [], ["A"], "needs options"),
        (QuestionType.CLOZE, [Option(label=x, text=x, blank=1) for x in "AB"], ["A", "B"], "2 answers for 1"),
        (QuestionType.FILL, [], [], "empty"),
    ],
)
def test_invalid_answers_say_why(
    qtype: QuestionType, options: list[Option], answer: list[str] | list[bool], message: str
) -> None:
    with pytest.raises(AnswerError, match=message):
        check_answer(qtype, options, answer)


def test_type_names_parse_in_both_languages() -> None:
    assert QuestionType.parse("完形填空") is QuestionType.CLOZE
    assert QuestionType.parse("single_choice") is QuestionType.SINGLE
    with pytest.raises(ValueError, match="unknown question type"):
        QuestionType.parse("essay")
