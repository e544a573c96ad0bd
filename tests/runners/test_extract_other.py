"""Extraction of judgment, fill-in, sorting and cloze answers; and properties that hold for any output."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.records import Question, QuestionType
from runners.extract import extract
from tests.qfactory import cloze, fill, judgment, multiple, single, sorting

THREE = judgment(["质数都是奇数", "1不是质数", "2是偶数"], [False, True, True])
TFT = [True, False, True]

JUDGMENT_THREE = [
    ("1. 对 2. 错 3. 对", TFT),
    ("1.T 2.F 3.T", TFT),
    ("TFT", TFT),
    ("√×√", TFT),
    ("（1）正确（2）错误（3）正确", TFT),
    ("①对②错③对", TFT),
    ("正确，错误，正确", TFT),
    ("1. true 2. false 3. true", TFT),
    ("1. True\n2. False\n3. True", TFT),
    ("1.√ 2.× 3.√", TFT),
    ("答案：T F T", TFT),
    ("1. 对 2. 对 3. 对", [True, True, True]),
    ("正确答案是：1. 错误 2. 正确 3. 正确", [False, True, True]),
    ("第1题：F\n第2题：T\n第3题：T", [False, True, True]),
    ("1. 该说法错误 2. 该说法正确 3. 该说法正确", [False, True, True]),
    (
        "让我们一步一步思考。第一个说法中，2是质数但不是奇数，对于这种情况要注意。第二个，1既不是质数也不是合数。"
        "第三个显然。所以答案是：1. 错 2. 对 3. 对",
        [False, True, True],
    ),
    ("1. F\n2. T\n3. T\n例2: 判断下列说法 答案: 1. T", [False, True, True]),
    # The answer first, as letters, then an explanation that repeats verdict words (#36 item 5: shown 未解析).
    ("TTT\n解释：第一个说法错误，因为2是偶数质数；第二个正确。", [True, True, True]),
    ("答案：FTT\n1. 质数不都是奇数，错误。2. 正确", [False, True, True]),
]


@pytest.mark.parametrize(("output", "verdicts"), JUDGMENT_THREE)
def test_judgment_three_statements(output: str, verdicts: list[bool]) -> None:
    found = extract(THREE, output)
    assert found.status == "ok", output
    assert found.answer == verdicts, output


ONE = judgment(["0是最小的自然数"], [True])
JUDGMENT_ONE = [
    ("对", True),
    ("错误", False),
    ("F", False),
    ("×", False),
    ("√", True),
    ("这个说法是错误的。", False),
    ("正确答案是：F", False),
    ("The statement is false.", False),
    ("The statement is not correct.", False),
    ("True.", True),
    ("错误。因为正确的做法是先通分。", False),
    ("不正确", False),
    ("这种说法不对。", False),
    ("判断正误：该说法正确", True),
]


@pytest.mark.parametrize(("output", "verdict"), JUDGMENT_ONE)
def test_judgment_one_statement(output: str, verdict: bool) -> None:
    found = extract(ONE, output)
    assert found.status == "ok", output
    assert found.answer == [verdict], output


@pytest.mark.parametrize(
    "output",
    ["1. T 2. F", "我不确定", "有的对有的错", "TF", "1. 对 2. 错 3.", "This is hard to judge."],
)
def test_judgment_unparsed(output: str) -> None:
    assert extract(THREE, output).status == "unparsed", output


def test_judgment_reads_after_an_answer_marker_only_with_its_colon() -> None:
    """答案 without a colon is a word of the sentence (runners.extraction.markers.ANSWERS_ARE_COLON):
    the verdict-like 对 right after it is no answer; a question (是对的吗？) is no verdict either, so the reply is."""
    assert extract(ONE, "这个答案是对的吗？不对。").answer == [False]
    assert extract(ONE, "这个说法对吗？答案是：不对。").answer == [False]


FOUR = judgment(
    ["对顶角相等", "错角一定相等", "两直线平行，同旁内角相等", "三角形内角和为180度"], [True, False, False, True]
)
TFFT = [True, False, False, True]
JUDGMENT_FOUR = [
    # Run-together Chinese verdicts: 对 and 错 back to back, one per statement.
    ("正确答案是：对错错对", TFFT),
    ("对错错对", TFFT),
    ("答案：对错错对。", TFFT),
    ("判断下列说法的对错：对错错对", TFFT),  # the instruction's 对错 is no verdict, the run after it is
    ("判断下列说法的对错。\n答案：对错错对", TFFT),
    ("对错错对\n解释：对顶角相等，正确；错角不一定相等，说法错误。", TFFT),  # the run first, then the reasons
    ("√××√", TFFT),
    ("✓✗✗✓", TFFT),
    ("正确、错误、错误、正确", TFFT),
    ("1.对 2.错 3.错 4.对", TFFT),
    ("1. 对顶角相等：对\n2. 错角一定相等：错\n3. 同旁内角相等：错\n4. 内角和为180度：对", TFFT),  # restated
]


@pytest.mark.parametrize(("output", "verdicts"), JUDGMENT_FOUR)
def test_judgment_four_statements_run_together_or_listed(output: str, verdicts: list[bool]) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("ok", verdicts), output


@pytest.mark.parametrize(
    "output",
    [
        "对错错",  # three verdicts for four statements
        "对错错对对",  # five
        "答案：对错错对，对",  # five, one apart
        "判断下列说法的对错。",  # the instruction alone
        "请判断 对错：对错",  # the instruction, then two verdicts
        "判断对错\n对顶角相等，错角一定相等。",  # the statements restated: 对顶, 错角 are no verdicts
        "（对错）",  # a bracketed echo of the prompt's blank
    ],
)
def test_judgment_run_together_verdicts_of_another_count_stay_unparsed(output: str) -> None:
    assert extract(FOUR, output).status == "unparsed", output


def test_two_run_together_verdicts_read_only_outside_the_instruction() -> None:
    two = judgment(["0是自然数", "1是质数"], [True, False])
    assert extract(two, "答案：对错").answer == [True, False]
    assert extract(two, "这两句话的对错：错对").answer == [False, True]
    for echo in ("判断下列说法的对错。", "判断 对错", "请判断对错", "对错：", "说法的对错如下"):
        assert extract(two, echo).status == "unparsed", echo


ZERO = fill(["0"])
FILL_ONE = [
    ("正确答案是：0", "0"),
    ("0", "0"),
    ("正确答案是：$$0$$。", "$$0$$"),
    ("让我们一步一步思考。一个数的相反数等于它本身，即 a=-a，所以 a=0。\n故答案为：0", "0"),
    ("The answer is 0.", "0"),
    ("答案：０", "0"),
    ("应填：零。", "零"),
    ("首先设这个数为a。\n则a=-a，\n0", "0"),
    # Final-answer statements a fill-in reader missed: \boxed{}, GSM8K's ####, the Q:/A: layout's A: (#27 item 9).
    ("设这个数为 \\(a\\)，则 \\(a=-a\\)。\n\n因此，这个数是 \\(\\boxed{0}\\)。", "0"),
    ("a = -a, so 2a = 0\n#### 0", "0"),
    ("Let the number be a. Then a = -a.\nA: 0", "0"),
    ("则 $$a=-a$$，\n所以这个数是0", "所以这个数是0"),
]


@pytest.mark.parametrize(("output", "blank"), FILL_ONE)
def test_fill_one_blank(output: str, blank: str) -> None:
    found = extract(ZERO, output)
    assert found.status == "ok", output
    assert found.answer == [blank], output


TWO = fill(["右", "$$1$$"], stem="抛物线向 $$\\underline{}$$ 平移 $$\\underline{}$$ 个单位。")
FILL_TWO = [
    ("正确答案是：右；1", ["右", "1"]),
    ("1. 右 2. 1", ["右", "1"]),
    ("（1）右（2）1", ["右", "1"]),
    ("①右②1", ["右", "1"]),
    ("右，1", ["右", "1"]),
    ("第一空：右；第二空：1", ["右", "1"]),
    ("正确答案是：右 1", ["右", "1"]),
    ("故答案为：右；$$1$$", ["右", "$$1$$"]),
    ("先配方，可以看出顶点向右移动。\n所以向右平移1个单位\n右；1", ["右", "1"]),
    ("The answers are: right; 1", ["right", "1"]),
]


@pytest.mark.parametrize(("output", "blanks"), FILL_TWO)
def test_fill_two_blanks(output: str, blanks: list[str]) -> None:
    found = extract(TWO, output)
    assert found.status == "ok", output
    assert found.answer == blanks, output


@pytest.mark.parametrize("output", ["", "我不知道这道题的答案。", "Sorry, I cannot answer.", "抱歉，这超出了我的能力"])
def test_fill_refusals_are_unparsed(output: str) -> None:
    assert extract(ZERO, output).status == "unparsed"


@pytest.mark.parametrize(
    "output",
    [
        # Text that is no answer: any last line was read as one (#27 item 9), as lm-eval says [invalid].
        "今天天气很好，我们去公园散步吧。\n公园里有很多人在放风筝，孩子们玩得很开心，大家都笑了起来。",
        "The quick brown fox jumps over the lazy dog while the farmer watches from the barn door.",
        "Lorem ipsum dolor sit amet.\nConsectetur adipiscing elit, sed do eiusmod tempor incididunt",
        # A chain cut off by the token limit, or looping, before it answers.
        "设这个数为 \\(a\\)。\n根据题意，相反数等于它本身的数满足\n\\[\n a = -",
        "我们需要找到一个数，它的相反数等于它本身\n# 我们需要找到一个数，它的相反数等于它本身\n# 我们需要找到一个数，它的相反数",
        "Step 1: Let the number be a.\nStep 2: The opposite of a is",
    ],
)
def test_fill_text_that_is_no_answer_is_unparsed(output: str) -> None:
    found = extract(ZERO, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


DIALOGUE = sorting(["Thanks.", "It's a quilt.", "Spell it, please!", "What's this?", "Q-U-I-L-T."], "DBCEA")
SORTING = [
    ("正确的顺序应该是：DBCEA", "DBCEA"),
    ("DBCEA", "DBCEA"),
    ("D-B-C-E-A", "DBCEA"),
    ("D→B→C→E→A", "DBCEA"),
    ("正确的顺序应该是：D、B、C、E、A。", "DBCEA"),
    ("The correct order is: D, B, C, E, A", "DBCEA"),
    ("答案：(D)(B)(C)(E)(A)", "DBCEA"),
    ("D B C E A", "DBCEA"),
    ("ABCDE", "ABCDE"),
    (
        "让我们一步一步思考。对话应以提问开始，即D；B回答；C请求拼写；E拼写；A致谢。因此正确的顺序应该是：DBCEA",
        "DBCEA",
    ),
    ("首先D，然后B。完整的是 D B C E A 吧", "DBCEA"),
]


@pytest.mark.parametrize(("output", "order"), SORTING)
def test_sorting(output: str, order: str) -> None:
    found = extract(DIALOGUE, output)
    assert found.status == "ok", output
    assert found.answer == list(order), output


@pytest.mark.parametrize("output", ["我不知道", "The order is unclear.", "D"])
def test_sorting_unparsed(output: str) -> None:
    assert extract(DIALOGUE, output).status == "unparsed"


PASSAGE = cloze([["am", "is", "are", "be"], ["is", "am", "are", "be"], ["good", "well", "nice"]], "BAC")
CLOZE = [
    ("1. B 2. A 3. C", "BAC"),
    ("BAC", "BAC"),
    ("(1)B (2)A (3)C", "BAC"),
    ("1-B 2-A 3-C", "BAC"),
    ("正确答案是：1.B；2.A；3.C", "BAC"),
    ("B A C", "BAC"),
    ("1. 主语是I，用am，选B\n2. 主语是she，用is，选A\n3. 形容词作表语，选C", "BAC"),
    ("Answers: 1.B 2.A 3.C", "BAC"),
    ("１．Ｂ　２．Ａ　３．Ｃ", "BAC"),
    # GAOKAO-Bench's format: one 【答案】 per question, numbered as the exam numbers them (36, 37 ...)
    ("（36）【答案】 B <eoa>\n（37）【答案】 A <eoa>\n（38）【答案】 C <eoa>", "BAC"),
    (
        "（1）【解析】 主语是I，答案应该是B <eoe>\n【答案】: B <eoa>\n（2）【解析】 选A <eoe>\n【答案】：A <eoa>\n"
        "（3）【解析】 形容词 <eoe>\n【答案】 **C** <eoa>",
        "BAC",
    ),
]


@pytest.mark.parametrize(("output", "letters"), CLOZE)
def test_cloze(output: str, letters: str) -> None:
    found = extract(PASSAGE, output)
    assert found.status == "ok", output
    assert found.answer == list(letters), output


@pytest.mark.parametrize(
    "output",
    ["我不会", "B, A", "1. B 2. A 3. D", "BAD", "（1）【答案】 B <eoa>\n（2）【答案】 无 <eoa>\n（3）【答案】 C <eoa>"],
)
def test_cloze_unparsed_or_invalid_for_its_blank(output: str) -> None:
    # Blank 3 has only A-C: "D" for it is no answer.
    assert extract(PASSAGE, output).status == "unparsed", output


QUESTIONS = [single(), multiple(), THREE, ONE, ZERO, TWO, DIALOGUE, PASSAGE]
ALPHABET = st.sampled_from(
    [*"ABCDEFTabc√×对错正确误答案是：:;；,，、。.()（）1234 \n", "正确答案是：", "选", "</think>", "例2:", "Ａ", "$$"]
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(QUESTIONS), st.lists(ALPHABET, max_size=40).map("".join))
def test_any_output_gives_a_well_formed_answer_or_unparsed(question: Question, output: str) -> None:
    found = extract(question, output)
    if found.status == "unparsed":
        assert found.answer is None and found.span is None
        return
    assert found.answer
    assert found.span is not None and 0 <= found.span[0] <= found.span[1] <= len(output)
    if question.type in (QuestionType.SINGLE, QuestionType.MULTIPLE, QuestionType.SORTING):
        assert set(map(str, found.answer)) <= set(question.option_labels)
    if question.type is QuestionType.JUDGMENT:
        assert len(found.answer) == len(question.options)
        assert all(isinstance(v, bool) for v in found.answer)
    if question.type is QuestionType.CLOZE:
        groups = question.blanks()
        assert all(a in [o.label for o in g] for a, g in zip(found.answer, groups, strict=True))


# Numbered verdicts go to the statement they name, whatever order the answer discusses them in (judgment audit,
# item 1); FOUR's statements, read as [①, ②, ③, ④].
JUDGMENT_BY_NUMBER = [
    ("①正确，③正确，②错误，④错误", [True, False, True, False]),
    ("第3个说法错误，第1个说法正确，第2个说法正确，第4个说法错误", [True, True, False, False]),
    ("（2）错误（1）正确（4）正确（3）错误", [True, False, False, True]),
    ("说法三错误，说法一正确，说法四正确，说法二错误", [True, False, False, True]),
    (
        "让我们一步一步思考。\n第一个说法：对顶角相等，正确。\n第三个说法：两直线平行，同旁内角互补而不是相等，所以错误。\n"
        "第四个说法：三角形内角和为180度，正确。\n第二个说法：错角不一定相等，错误。",
        [True, False, False, True],
    ),
    ("第一句对，第二句错，第四句对，第三句错", [True, False, False, True]),
    # a term of a sequence and a line name no statement: 正确 is statement 1's
    ("1. 数列的第3项是5，正确。\n2. 错误\n3. 正确\n4. 正确", [True, False, True, True]),
    ("1. 第1条直线与第2条直线平行，正确。\n2. 错误\n3. 错误\n4. 正确", [True, False, False, True]),
    # CK12's analyses quote the passage with its paragraph numbers: “④……” names no statement
    (
        "1.根据原文“①那时虽然年幼……”判断。故正确。\n2.根据内容“④而今……”判断。故错误。\n3.故错误。\n4.“⑫合了书……”故正确。",
        [True, False, False, True],
    ),
    ("1. F\n2. T\n3. T\n4. F\n5. F", [False, True, True, False]),  # the list went on past four: the first four
    # Llama-2 on CK12 (release eval_results): a list, then a remark on one statement by its number
    ("1.T  2.F  3.F  4.T\n\n```\n对于第三道题，答案是错误的，但是给出的答案是“F”。\n```", [True, False, False, True]),
]


@pytest.mark.parametrize(("output", "verdicts"), JUDGMENT_BY_NUMBER)
def test_judgment_numbered_verdicts_go_to_the_statement_they_name(output: str, verdicts: list[bool]) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer, found.rule) == ("ok", verdicts, "numbered"), output


@pytest.mark.parametrize(
    "output",
    [
        "①正确，③错误，②错误，最后一个正确",  # ④ never named: the fourth verdict is not read by its place
        "①正确 ②错误 ③错误 ④正确\n再想想：①错误",  # ① named twice with two verdicts
        "①正确 ⑤错误 ②错误 ③错误 ④正确",  # a fifth statement among the four
        "第1个说法正确，第3个说法错误，第2个说法错误，另外两个说法正确",  # one is left, not two
    ],
)
def test_judgment_numbered_verdicts_not_one_per_statement_stay_unparsed(output: str) -> None:
    found = extract(FOUR, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


# CK12's 物理 judgment questions letter their statements A., B., … (F among them).
LETTERED = judgment(
    [
        "A.音调高就是响度大",
        "B.“高声大叫”中的“高”是指响度大",
        "C.“低声细语”中的“低”是指音调低",
        "D.声音越大，音调越高",
        "E.声音的传播需要介质",
        "F.真空能传声",
    ],
    [False, True, False, False, True, False],
)


@pytest.mark.parametrize(
    "output",
    [
        "A. 错误\nB. 正确\nC. 错误\nD. 错误\nE. 正确\nF. 错误",
        "F. 错误 A. 错误 C. 错误 B. 正确 D. 错误 E. 正确",  # F is statement F, not a verdict
        "（A）×（B）√（C）×（D）×（E）√（F）×",
        "选项A错误，选项B正确，选项C错误，选项D错误，选项E正确，选项F错误",
        "A错误，B正确，C错误，D错误，E正确，F错误",
        "1. F. 2. T. 3. F. 4. F. 5. T. 6. F.",  # no A: letters are verdicts
    ],
)
def test_judgment_lettered_statements(output: str) -> None:
    found = extract(LETTERED, output)
    assert (found.status, found.answer) == ("ok", [False, True, False, False, True, False]), output


TWO_STATEMENTS = judgment(["0是自然数", "1是质数"], [True, False])


@pytest.mark.parametrize(
    ("question", "output", "verdicts"),
    [
        # The noun or adverb 错误/正确 of prose is no verdict (item 2); the verdict at the clause end is.
        (ONE, "正确的做法是先通分，所以这个说法错误。", [False]),
        (ONE, "我们不能因为害怕犯错误而不敢实践，所以这句话是正确的。", [True]),
        (ONE, "要及时纠正错误。这个说法不正确。", [False]),
        (ONE, "这种说法错误地认为0不是自然数，所以是错误的。", [False]),
        # CK12's analysis of a 生物 statement: 抱对 and 成对的 are no verdicts (it was read as 对)
        (ONE, "在繁殖季节雌雄蛙抱对，染色体是成对的，所以说法错误。", [False]),
        # × and √ as operators (item 3); as verdicts after a label.
        (ONE, "$$3\\times 4=12$$，所以这个说法正确。", [True]),
        (ONE, "由F=ma可知，加速度与合力成正比，这个说法正确。", [True]),
        (TWO_STATEMENTS, "（1）×（2）√", [False, True]),
        (TWO_STATEMENTS, "①×②√", [False, True]),
        (TWO_STATEMENTS, "1. ×\n2. √", [False, True]),
        (TWO_STATEMENTS, "1.√2.×", [True, False]),
        (TWO_STATEMENTS, "第一种情况：f(1)=0，正确；第二种情况：f(2)=1，错误。", [True, False]),
        # One statement: numbered steps name no statement; every verdict agrees, so the answer is read.
        (ONE, "1. 理解题意：题目说0是最小的自然数。\n2. 分析：自然数从0开始。\n3. 结论：这个说法正确。", [True]),
    ],
)
def test_judgment_verdicts_only_in_a_verdict_position(question: Question, output: str, verdicts: list[bool]) -> None:
    found = extract(question, output)
    assert (found.status, found.answer) == ("ok", verdicts), output


@pytest.mark.parametrize(
    "output",
    [
        "很多同学错误地认为0不是自然数，其实0是自然数。1是质数的说法是错误的。",  # one verdict, not [F, F]
        "因为3×4=12，所以正确。",  # one verdict: × multiplies
        "√4=2，所以正确。",  # √ is a root
        "正确的理解是：0是自然数，1不是质数，这是错误的。",
        # 0/1 per statement: never read (the extractor sees no prompt; none of ours asks for 0/1; a legend such
        # as "1表示正确" would have to be parsed to know 1 from 0).
        "1. 1 2. 0",
        "1. 0\n2. 1",
        "1. 1 2. 0（1表示正确，0表示错误）",
    ],
)
def test_judgment_prose_words_and_operators_are_no_verdicts(output: str) -> None:
    found = extract(TWO_STATEMENTS, output)
    assert (found.status, found.answer) == ("unparsed", None), (output, found)


def test_a_base_models_next_example_ends_the_answer() -> None:
    """ChatGLM2 on CK12 (eval_results/chatglm2_zero_shot.json) answers, then writes "第1个例子：" with its own
    numbered verdicts: they are not the answer's."""
    output = "1. 对\n2. 错\n\n第1个例子：\n\n1. 若ab<c，则a<c/b。\n\n解析：正确。\n\n2. 0属于正实数。\n\n解析：错误。"
    assert extract(TWO_STATEMENTS, output).answer == [True, False]
