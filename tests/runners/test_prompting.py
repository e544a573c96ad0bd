"""Prompts: the CK12 and CMMLU wording pieces are where the protocol puts them, for every type and mode."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from kg.records import Question
from runners.prompting import (
    Exemplar,
    as_chat,
    as_text,
    build_prompt,
    prompt_hash,
    render_answer,
    template_hash,
)
from runners.protocol import prompt_language
from runners.records import Mode
from runners.templates import MODES, TemplateError, available_template_sets, load_template_set
from tests.qfactory import cloze, fill, judgment, multiple, single, sorting

CK12_SINGLE_ZERO = (
    "下面是一道选择题，题干之后是四个选项，请从ABCD中选出正确的选项，直接给出正确选项对应的结果即可。题目："
)
CK12_FORMAT = "特别注意，不需要给解析，并且回答的格式应为“正确答案是：”"
COT = "让我们一步一步思考"


def _exemplars(n: int, subject: str = "数学") -> list[Exemplar]:
    return [
        Exemplar.from_question(
            single(
                (f"{i}", f"{i + 1}", f"{i + 2}", f"{i + 3}"),
                "C",
                id=f"ex{i}",
                subject=subject,
                stem=f"例题{i}：{i}+2=（  ）",
                analysis=f"先算{i}+2。\n\n得{i + 2}，故选C。",
            )
        )
        for i in range(n)
    ]


ALL_TYPES = [
    single(),
    multiple(),
    judgment(["质数都是奇数", "1不是质数"], [False, True]),
    fill(["0"]),
    sorting(["Thanks.", "Hello!", "Hi!"], "BCA"),
    cloze([["am", "is"], ["is", "are"]], "AA"),
]


@pytest.mark.parametrize("question", ALL_TYPES, ids=lambda q: q.type.value)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_type_and_mode_renders_completely(question: Question, mode: Mode, lang: str) -> None:
    shots = [
        Exemplar.from_question(question.model_copy(update={"id": "other", "stem": "另一题", "analysis": "a\n\nb"}))
    ]
    prompt = build_prompt(question, mode, lang, shots if mode.startswith("few") else [])  # type: ignore[arg-type]
    assert question.stem in prompt.text
    assert not re.search(r"\{[a-z_]+\}", prompt.text), prompt.text  # no placeholder left unfilled
    assert prompt.shots == (1 if mode.startswith("few") else 0)
    if mode.endswith("cot"):
        assert (COT if lang == "zh" else "Let's think step by step") in prompt.text
    else:
        assert COT not in prompt.text and "step by step" not in prompt.text


def test_ck12_zero_shot_single_choice_is_the_papers_wording() -> None:
    text = build_prompt(single(), "zero-shot").text
    assert text.startswith(CK12_SINGLE_ZERO + "中国的首都是（  ）\nA.上海\nB.北京\nC.广州\nD.深圳\n")
    assert text.endswith(CK12_FORMAT)


def test_ck12_zero_shot_cot_appends_the_trigger() -> None:
    text = build_prompt(single(), "zero-shot-cot").text
    assert text.endswith(CK12_FORMAT + "\n让我们一步一步思考。")


def test_ck12_few_shot_numbers_its_examples_and_shows_their_answers() -> None:
    text = build_prompt(single(), "few-shot", exemplars=_exemplars(5)).text
    assert text.startswith("请选出下列单选题的正确答案，直接给出正确选项对应的结果即可")
    assert [int(n) for n in re.findall(r"例(\d+): ", text)] == [1, 2, 3, 4, 5]
    assert text.count(" 答案: C\n") == 5
    assert text.endswith("题目：中国的首都是（  ）\nA.上海\nB.北京\nC.广州\nD.深圳\n正确答案是：")
    assert "先算" not in text  # plain few-shot shows no analysis


def test_ck12_few_shot_cot_shows_the_analysis_as_numbered_steps() -> None:
    text = build_prompt(single(), "few-shot-cot", exemplars=_exemplars(2)).text
    assert text.count("答案: 让我们一步一步思考。\n1. 先算") == 2
    assert "\n2. 得2，故选C。\n" in text
    assert text.endswith("正确答案是: 让我们一步一步思考")


def test_option_count_and_letters_follow_the_question() -> None:
    fourteen = single([f"选项{i}" for i in range(14)], "K")
    text = build_prompt(fourteen, "zero-shot").text
    assert "题干之后是14个选项，请从A到N中选出正确的选项" in text
    three = single(["甲", "乙", "丙"], "A")
    assert "题干之后是三个选项，请从ABC中选出" in build_prompt(three, "zero-shot").text
    assert (
        "followed by three options; choose the correct option from ABC" in build_prompt(three, "zero-shot", "en").text
    )


def test_type_specific_answer_formats() -> None:
    judge = build_prompt(judgment(["a", "b"], [True, False]), "zero-shot").text
    assert "正确的回答‘T’，错误的回答‘F’" in judge and "“1.  2.  3.”" in judge
    assert "“正确的顺序应该是：”" in build_prompt(sorting(["x", "y"], "BA"), "zero-shot").text
    assert "$$\\underline{}$$" in build_prompt(fill(["0"]), "zero-shot").text
    assert "下面是一道多选题，注意答案可能不止一个" in build_prompt(multiple(), "zero-shot").text


def test_cloze_options_are_written_one_line_per_blank() -> None:
    text = build_prompt(cloze([["am", "is"], ["is", "are"]], "AA"), "zero-shot").text
    assert "\n1. A.am B.is\n2. A.is B.are\n" in text


def test_exemplar_answers_in_each_type() -> None:
    ck12 = load_template_set("ck12", "zh")
    assert render_answer(judgment(["a", "b"], [True, False]), ck12) == "1. T 2. F"
    assert render_answer(judgment(["a"], [False]), ck12) == "F"
    assert render_answer(multiple(), ck12) == "ABD"
    assert render_answer(fill(["右", "1"]), ck12) == "右；1"
    assert render_answer(cloze([["a", "b"], ["c", "d"]], "BA"), ck12) == "1. B 2. A"


def test_stems_with_braces_are_left_alone() -> None:
    question = single(stem="已知 $$f(x)=\\frac{1}{x}$$ 与 {question} 字样")
    assert "$$f(x)=\\frac{1}{x}$$ 与 {question} 字样" in build_prompt(question, "zero-shot").text


def test_cmmlu_template_set() -> None:
    text = build_prompt(single(), "few-shot", exemplars=_exemplars(2), template_set="cmmlu").text
    assert text.startswith("以下是关于数学的单项选择题，请直接给出正确答案的选项。\n\n题目：例题0")
    assert "\nA. 0\nB. 1\nC. 2\nD. 3\n答案是：C\n\n" in text
    assert text.endswith("题目：中国的首都是（  ）\nA. 上海\nB. 北京\nC. 广州\nD. 深圳\n答案是：")
    cot = build_prompt(single(), "zero-shot-cot", template_set="cmmlu").text
    assert cot.startswith("以下是关于数学的单项选择题，请分析并选出正确答案。") and cot.endswith(
        "逐步分析并给出答案选项。"
    )
    english = build_prompt(single(), "zero-shot", "en", template_set="cmmlu").text
    assert english.startswith("The following are multiple choice questions (with answers) about mathematics.")
    assert english.endswith("\nAnswer:")


def test_cmmlu_has_no_template_for_other_types() -> None:
    with pytest.raises(TemplateError, match=r"cmmlu.*no template for fill_in_blank"):
        build_prompt(fill(["0"]), "zero-shot", template_set="cmmlu")


def test_mistakes_are_refused() -> None:
    with pytest.raises(ValueError, match="takes no exemplars"):
        build_prompt(single(), "zero-shot", exemplars=_exemplars(1))
    with pytest.raises(ValueError, match="unknown mode"):
        build_prompt(single(), "one-shot")  # type: ignore[arg-type]
    with pytest.raises(TemplateError, match="no template set 'mmlu'"):
        build_prompt(single(), "zero-shot", template_set="mmlu")


def test_few_shot_without_exemplars_keeps_the_few_shot_wording() -> None:
    prompt = build_prompt(single(), "few-shot")
    assert prompt.shots == 0 and prompt.text.startswith("请选出下列单选题的正确答案")


def test_chat_messages_and_plain_text() -> None:
    prompt = build_prompt(single(), "zero-shot")
    assert as_chat(prompt) == [{"role": "user", "content": prompt.text}]
    assert as_text(prompt) == prompt.text
    assert prompt.stop == ("\n例", "\n题目：")


def test_prompt_hash_tells_texts_and_messages_apart() -> None:
    prompt = build_prompt(single(), "zero-shot")
    assert prompt_hash(prompt.text) == prompt_hash(prompt.text)
    assert prompt_hash(prompt.text) != prompt_hash(as_chat(prompt))
    assert prompt_hash(prompt.text) != prompt_hash(prompt.text + " ")


def test_template_hash_covers_templates_and_exemplars_but_not_their_order() -> None:
    shots = _exemplars(3)
    base = template_hash("ck12", "zh")
    assert template_hash("ck12", "zh") == base
    assert template_hash("ck12", "en") != base
    assert template_hash("ck12", "zh", shots) != base
    assert template_hash("ck12", "zh", shots) == template_hash("ck12", "zh", shots[::-1])
    assert template_hash("ck12", "zh", shots[:2]) != template_hash("ck12", "zh", shots)


def test_bundled_sets() -> None:
    assert set(available_template_sets()) >= {("ck12", "zh"), ("ck12", "en"), ("cmmlu", "zh"), ("cmmlu", "en")}


def test_a_users_template_file(tmp_path: Path) -> None:
    bundled = Path(__file__).resolve().parents[2] / "runners" / "prompts" / "ck12.zh.toml"
    changed = tmp_path / "mine.toml"
    changed.write_text(bundled.read_text(encoding="utf-8").replace("让我们一步一步思考。", "请逐步推理。"), "utf-8")
    prompt = build_prompt(single(), "zero-shot-cot", template_set=str(changed))
    assert prompt.text.endswith("请逐步推理。")
    assert prompt.template_hash != build_prompt(single(), "zero-shot-cot").template_hash


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s.replace("{option_count}", "{option_cnt}"), r"unknown placeholder\(s\) \{option_cnt\}"),
        (lambda s: s.replace('exemplar = "', 'exampl = "'), r"\[layout\] lacks exemplar"),
        (lambda s: s.replace("[layout]", "[layout\n"), "not valid TOML"),
        (lambda s: s.replace('fewshot_fallback = "ck12"', 'fewshot_fallback = "random"'), "fewshot_fallback"),
    ],
)
def test_bad_template_files_are_reported_with_file_and_field(
    tmp_path: Path, edit: Callable[[str], str], message: str
) -> None:
    bundled = Path(__file__).resolve().parents[2] / "runners" / "prompts" / "ck12.zh.toml"
    bad = tmp_path / "bad.toml"
    bad.write_text(edit(bundled.read_text(encoding="utf-8")), "utf-8")
    with pytest.raises(TemplateError, match=message) as error:
        load_template_set(str(bad))
    assert str(bad) in str(error.value)


@pytest.mark.parametrize(
    ("source", "stem_language", "asked", "expected"),
    [
        ("ck12", "en", "auto", "zh"),  # CK12's English-subject questions get the paper's Chinese prompt
        ("cmmlu", "en", "auto", "zh"),
        ("ceval", "en", "auto", "zh"),
        ("xiezhi", "en", "auto", "en"),  # Xiezhi's English file is asked in English
        ("my-bank", "en", "auto", "en"),
        ("ck12", "zh", "en", "en"),  # an explicit --lang wins
        ("my-bank", "en", "zh", "zh"),
    ],
)
def test_auto_prompt_language_is_the_benchmarks_protocol(
    source: str, stem_language: str, asked: str, expected: str
) -> None:
    question = single(source=source, language=stem_language, stem="Which city is the capital of China?")
    assert prompt_language(question, asked) == expected


def test_a_ck12_english_question_is_asked_in_chinese_by_a_run() -> None:
    from runners.answering import Answerer
    from runners.backends.base import SamplingParams
    from runners.options import RunOptions

    class Chat:
        is_chat = True

    question = single(source="ck12", language="en", subject="英语", stem="It's very kind ___ you.")
    options = RunOptions(data=Path("bank"), model="m", out=Path("out"), template_set="ck12", shots=5)
    answerer = Answerer(options, Chat(), SamplingParams(), None, "")  # type: ignore[arg-type]
    prompt, _ = answerer.prompt_for(question)
    assert prompt.language == "zh" and prompt.text.startswith(CK12_SINGLE_ZERO)


XIEZHI_ZH_FEW = (
    "下面请你作为一个答题者，回答一道选择题。我会在“问题描述”中描述这道问题是什么、“所有选项”中列出所有可以选择的选项、"
    "请你将你认为正确的选项输出在“答案”后面。我会在前面给你几个例子，并用“Demonstration”符号进行标记，请你根据给出的例子的"
    "格式和可以借鉴的信息，只回答最后一题。请你将你认为正确的选项内容进行输出，不要输出多余的文本。"
)
"""cn_multiple_choice_demonstration_template of Xiezhi's released xiezhi_evaluate.py, as published."""


def test_xiezhi_template_set_is_its_own() -> None:
    # Xiezhi's released few-shot prompt (#16 item 6, #26 item 1): instruction, "Demonstration" examples, the
    # question block, unlettered options, the answer as option text.
    question = single(source="xiezhi", stem="中国的首都是_____")
    exemplar = Exemplar.from_question(single(id="e", source="xiezhi", stem="上海在_____", answer="A"))
    text = build_prompt(question, "few-shot", "zh", [exemplar], "xiezhi").text
    assert text == (
        XIEZHI_ZH_FEW + "\n\nDemonstration 1:\n### 问题描述:\n上海在_____\n\n### 所有选项:\n上海\n北京\n广州\n深圳"
        "\n\n### 答案:\n上海\n\nQuestion:\n### 问题描述:\n中国的首都是_____\n\n### 所有选项:\n上海\n北京\n广州\n深圳"
        "\n\n### 答案:\n"
    )


def test_xiezhi_has_an_english_template_set_for_its_english_files() -> None:
    # en_multiple_choice_template of the released code (#26 item 1): before, `--templates xiezhi` had no English set.
    question = single(source="xiezhi", language="en", stem="The capital of China is _____")
    text = build_prompt(question, "zero-shot", "en", (), "xiezhi").text
    assert text.startswith("Below you will be asked to answer a multiple choice question as a respondent.")
    assert text.endswith(
        "only output the text of the option which you think is right.\n\n### question description:\n"
        "The capital of China is _____\n\n### all options:\n上海\n北京\n广州\n深圳\n\n### answer:\n"
    )


def test_a_ceval_question_is_asked_in_ceval_words() -> None:
    # C-Eval's released evaluator_series (#26 deliver 1): its header, "A. ..." lines, "答案："; a CoT
    # exemplar shows the explanation as written, then "所以答案是X。".
    question = single(source="ceval", subject="注册会计师", stem="下列哪个是导体？____")
    exemplar = Exemplar.from_question(
        single(id="e", source="ceval", subject="注册会计师", stem="声音在哪里传播最快？____", answer="C",
               analysis="1. 固体中最快。\n2. 所以选 C。")
    )  # fmt: skip
    text = build_prompt(question, "few-shot-cot", "zh", [exemplar], "ceval").text
    assert text == (
        "以下是中国关于注册会计师考试的单项选择题，请选出其中的正确答案。\n\n"
        "声音在哪里传播最快？____\nA. 上海\nB. 北京\nC. 广州\nD. 深圳\n答案：让我们一步一步思考，\n"
        "1. 固体中最快。\n2. 所以选 C。\n所以答案是C。\n\n"
        "下列哪个是导体？____\nA. 上海\nB. 北京\nC. 广州\nD. 深圳\n答案：让我们一步一步思考，\n1."
    )


def test_each_modes_meaning_is_its_record_and_every_reader_takes_it_from_there() -> None:
    from reasoning_metrics.run_scoring import COT_MODES
    from reports.analyses import COT_PAIRS
    from reports.tables import MODE_ORDER
    from runners.records import MODE_INFO, MODES, mode_info

    assert set(MODE_INFO) == set(MODES)
    assert [(m.name, m.few_shot, m.cot, m.without_cot) for m in MODE_INFO.values()] == [
        ("zero-shot", False, False, "zero-shot"),
        ("zero-shot-cot", False, True, "zero-shot"),
        ("few-shot", True, False, "few-shot"),
        ("few-shot-cot", True, True, "few-shot"),
    ]
    assert COT_MODES == ("zero-shot-cot", "few-shot-cot")
    assert COT_PAIRS == (("zero-shot", "zero-shot-cot"), ("few-shot", "few-shot-cot"))
    assert list(MODE_INFO) == MODE_ORDER
    with pytest.raises(ValueError, match="unknown mode 'one-shot'"):
        mode_info("one-shot")
