"""Extraction of single- and multiple-choice answers from realistic outputs, both languages."""

from __future__ import annotations

import pytest

from kg.records import Question
from runners.extract import extract
from tests.qfactory import multiple, single

ZH = single()  # 上海 北京 广州 深圳, gold B
EN = single(("Paris", "London", "Beijing", "Tokyo"), "C", stem="What is the capital of China?", language="en")

SINGLE_ZH = [
    ("正确答案是：B", "B"),
    ("B", "B"),
    ("B．北京", "B"),
    ("（B）", "B"),
    ("答案：Ｂ", "B"),
    ("Ｃ", "C"),
    ("选项C", "C"),
    ("C．", "C"),
    ("北京", "B"),
    ("正确答案是：北京。", "B"),
    ("正确答案是：\n\nD. 深圳", "D"),
    ("正确答案是：B\n\nA. 上海不是首都。", "B"),
    ("正确答案是：（Ｃ）", "C"),
    ("正确答案是：$$\\text{B}$$", "B"),
    ("**答案：C**", "C"),
    ("$\\boxed{D}$", "D"),
    ("故选：A", "A"),
    ("本题应选C。", "C"),
    ("正确选项为：D", "D"),
    ("选C。", "C"),
    ("C选项符合题意", "C"),
    ("我认为是D吧", "D"),
    ("因此，本题的正确答案为 B 选项。", "B"),
    ("A不正确，B不正确，C正确。", "C"),
    ("不选A，应该选B", "B"),
    ("这道题的答案不是A，而是C", "C"),
    ("答案是C，D项错误", "C"),
    # chains of thought that weigh other letters before concluding
    ("A项错误，上海不是首都；B项正确；C项错误；D项错误。故选B。", "B"),
    ("让我们一步一步思考。A选项上海是经济中心，C选项广州、D选项深圳都不是首都。所以答案是B。", "B"),
    ("让我们一步一步思考。\n1. 首都是中央政府所在地。\n2. 选项A、C、D都是重要城市但不是首都。\n所以正确答案是：B", "B"),
    ("假设答案是A，那么首都在上海，这与事实不符。因此选B。", "B"),
    # reasoning models, and base models that write on into the next example
    ("<think>用户问首都，可能是A？不对，是B。</think>\n正确答案是：B", "B"),
    ("B\n例2: 下列城市中位于广东的是 答案: C", "B"),
]

SINGLE_EN = [
    ("The answer is (C).", "C"),
    ("Answer: A", "A"),
    ("**Answer:** (D)", "D"),
    ("The correct answer is B. London is the capital of the UK.", "B"),
    ("I would choose D.", "D"),
    ("C", "C"),
    ("(C) Beijing", "C"),
    ("Beijing", "C"),
    ("Answer: Beijing", "C"),
    ("The final answer is $\\boxed{A}$.", "A"),
    ("The answer is C, not A.", "C"),
    ("C is the correct answer.", "C"),
    ("A is wrong, B is wrong, C is correct.", "C"),
    (
        "Let's think step by step. Option A, Paris, is the capital of France. Option B, London, is in the UK. "
        "Option D, Tokyo, is in Japan. So the answer is C.",
        "C",
    ),
    ("<think>Maybe A? No, Paris is in France.</think>The answer is C", "C"),
]

UNPARSED_SINGLE = [
    "抱歉，我无法回答这个问题。",
    "啊啊啊啊啊啊啊",
    "ABCD",
    "",
    "   ",
    "A project like this needs more context.",
    "I cannot answer this question.",
    "None of the options is correct.",
    "上海和北京都是大城市。",
    "A或者C吧，我也不确定",
]


@pytest.mark.parametrize(("output", "letter"), SINGLE_ZH)
def test_single_choice_chinese(output: str, letter: str) -> None:
    found = extract(ZH, output)
    assert found.status == "ok", output
    assert found.answer == [letter], output


@pytest.mark.parametrize(("output", "letter"), SINGLE_EN)
def test_single_choice_english(output: str, letter: str) -> None:
    found = extract(EN, output)
    assert found.status == "ok", output
    assert found.answer == [letter], output


@pytest.mark.parametrize("output", UNPARSED_SINGLE)
def test_no_answer_is_unparsed_never_a_guess(output: str) -> None:
    found = extract(ZH, output)
    assert found.status == "unparsed", (output, found)
    assert found.answer is None


@pytest.mark.parametrize("output", ["答案为B和C", "正确答案是：AB", "故选BD", "B和C都正确"])
def test_a_single_choice_answer_is_one_letter_or_unparsed(output: str) -> None:
    # Two letters for a one-letter question answer nothing that can be graded (#16 item 8).
    found = extract(ZH, output)
    assert (found.status, found.answer) == ("unparsed", None), output


TRUE_FALSE = single(("错误", "正确"), "B", stem="判断：1是质数。")


@pytest.mark.parametrize(
    ("question", "output"),
    [
        (TRUE_FALSE, "A. 错误\nB. 正确"),
        (TRUE_FALSE, "A. 错误 B. 正确"),  # on one line it was read as A
        (TRUE_FALSE, "A.错误 B.正确"),
        (TRUE_FALSE, "(A) 错误 (B) 正确"),
        (ZH, "A. 上海 B. 北京 C. 广州 D. 深圳"),
        (ZH, "A．上海　B．北京"),
    ],
)
def test_restated_options_are_not_an_answer(question: Question, output: str) -> None:
    found = extract(question, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


@pytest.mark.parametrize(
    "output",
    [
        "答案是B或C",
        "答案是B或者C。",
        "正确答案是：B还是C，不好说",
        "故选B或C",
        "The answer is B or C.",
        # A walk through the options with a verdict each, on one line: its first label is no answer.
        "A. 错误 B. 正确 C. 错误 D. 错误",
        "A.错误 B.正确 C.错误 D.错误",
    ],
)
def test_alternatives_and_walk_throughs_are_unparsed(output: str) -> None:
    # "答案是B或C" was read as B, the one-line walk-through as A (#26 item 6).
    found = extract(ZH, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


def test_alternatives_are_unparsed_for_multiple_choice_too() -> None:
    assert extract(multiple(), "答案是AB或ABD").status == "unparsed"
    assert extract(multiple(), "答案是ABD").answer == ["A", "B", "D"]


def test_restated_options_then_an_answer_read_the_answer() -> None:
    assert extract(TRUE_FALSE, "A. 错误 B. 正确\n正确答案是：B").answer == ["B"]
    assert extract(ZH, "A. 上海 B. 北京 C. 广州 D. 深圳\n故选B").answer == ["B"]


def test_span_and_evidence_point_into_the_raw_output() -> None:
    output = "<think>也许是A</think>\n正确答案是：Ｂ。"
    found = extract(ZH, output)
    assert found.span is not None
    assert output[found.span[0] : found.span[1]] == found.evidence == "Ｂ"
    assert found.rule == "explicit"


def test_an_option_whose_text_is_its_letter_is_not_read_inside_a_word() -> None:
    # GAOKAO-Bench Chemistry 99 (a table of options, then "A. A B. $B$ ..."): GPT-4-0314 answered that no option
    # fits; the "a" of "<eoa>" was read as option A's text.
    table = single(("A", "$B$", "$\\mathrm{C}$", "$\\mathrm{D}$"), "A")
    assert extract(table, "所有实验都可以达到目的。 <eoe>\n【答案】: 无正确答案 <eoa>").status == "unparsed"
    assert extract(table, "【答案】: A <eoa>").answer == ["A"]


def test_letters_beyond_the_options_are_not_answers() -> None:
    # Option E does not exist in a four-option question: nothing to read.
    assert extract(ZH, "E").status == "unparsed"


def test_fourteen_option_distractor_questions_read_late_letters() -> None:
    texts = [f"选项{i}" for i in range(14)]
    question = single(texts, "K")
    assert extract(question, "正确答案是：K").answer == ["K"]
    assert extract(question, "故选N").answer == ["N"]


ABD = ["A", "B", "D"]
MULTIPLE = [
    ("正确答案是：ABD", ABD),
    ("答案：A、B、D", ABD),
    ("ABD", ABD),
    ("A，B，D", ABD),
    ("选ABD", ABD),
    ("答案：ＡＢＤ", ABD),
    ("B D", ["B", "D"]),
    ("A", ["A"]),
    ("A正确，B正确，C错误，D正确", ABD),
    ("答案是BD，A项错误", ["B", "D"]),
    ("正确答案是：2、3、5", ABD),
    ("让我们一步一步思考。2是质数，3是质数，4不是质数，5是质数。所以答案是A、B、D。", ABD),
    ("The answers are A, B and D.", ABD),
    ("Answer: (A)(B)(D)", ABD),
    ("The correct options are A, B, D", ABD),
    ("<think>4=2×2，不是质数</think>ABD", ABD),
]


@pytest.mark.parametrize(("output", "letters"), MULTIPLE)
def test_multiple_choice(output: str, letters: list[str]) -> None:
    found = extract(multiple(), output)
    assert found.status == "ok", output
    assert found.answer == letters, output


@pytest.mark.parametrize("output", ["我无法确定。", "都有可能", "The question is unclear."])
def test_multiple_choice_unparsed(output: str) -> None:
    assert extract(multiple(), output).status == "unparsed"
