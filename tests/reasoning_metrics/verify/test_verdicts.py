"""Verdicts on a choice question's options against the gold answer (``option_verdicts``); invented questions."""

from __future__ import annotations

import pytest

from reasoning_metrics.verify.detector import Evidence, Reference
from reasoning_metrics.verify.detectors.option_verdicts import OptionVerdicts
from reasoning_metrics.verify.verdicts import asks_for_wrong, asserted_options, wrong_verdicts

RIGHT = "下列说法正确的是（　　）\nA. 水是单质\nB. 氧气能支持燃烧\nC. 铁是非金属\nD. 空气是纯净物"
WRONG = "下列说法错误的是（　　）\nA. 水是化合物\nB. 氧气能支持燃烧\nC. 铁是非金属\nD. 空气是混合物"
NOT_MEMBER = "下列物质不属于纯净物的是（　　）\nA. 水\nB. 氧气\nC. 空气\nD. 铁"


@pytest.mark.parametrize(
    ("problem", "negative"),
    [
        (RIGHT, False),
        (WRONG, True),
        (NOT_MEMBER, True),
        ("下列实验能达到目的的是（　　）\nA. x\nB. y", False),
        ("下列做法不能达到目的的是（　　）\nA. x\nB. y", True),
        # The bank stresses a negation with dots under it: $$\dot{错}\dot{误}$$ is 错误.
        ("下列推断$$\\dot{错}\\dot{误}$$的是（　　）\nA. x\nB. y", True),
        ("下列气体$$\\dot{不}\\dot{能}$$用碱石灰干燥的是（　　）\nA. x\nB. y", True),
    ],
)
def test_what_the_stem_asks_for(problem: str, negative: bool) -> None:
    assert asks_for_wrong(problem) is negative


@pytest.mark.parametrize(
    ("problem", "gold", "steps", "expected"),
    [
        # Option by option, every verdict right: nothing.
        (
            RIGHT,
            "B",
            [
                "A. 水是单质",
                "水是化合物，因此这个说法是错误的。",
                "B. 氧气能支持燃烧",
                "这个说法是正确的。",
                "C. 铁是非金属",
                "铁是金属，说法错误。",
                "故选B",
            ],
            [],
        ),
        # A false statement called true in a question asking for the true one: that step.
        # (The final choice 故选A is the reference detector's to check, not a verdict here.)
        (RIGHT, "B", ["A. 水是单质", "这个说法是正确的。", "故选A"], [(1, "A", "chosen")]),
        # The gold option rejected in a bare conclusion: placed on the comment it rests on.
        (
            RIGHT,
            "B",
            ["B. 氧气能支持燃烧", "- 氧气本身不能燃烧，没有明确说明。", "因此，这个选项不符合题意。"],
            [(1, "B", "rejected")],
        ),
        # The same words in a question asking for the wrong one mean the other verdict.
        (
            WRONG,
            "C",
            ["A. 水是化合物", "这个说法是正确的。", "C. 铁是非金属", "这个说法是正确的。"],
            [(3, "C", "rejected")],
        ),
        (WRONG, "C", ["B. 氧气能支持燃烧：这个说法是错误的。"], [(0, "B", "chosen")]),
        # Verdicts in the question's own terms, inline.
        (NOT_MEMBER, "C", ["A. 水：水由一种物质组成，因此不属于纯净物。"], [(0, "A", "chosen")]),
        (NOT_MEMBER, "C", ["C. 空气：空气由氮气、氧气等组成，因此属于纯净物。"], [(0, "C", "rejected")]),
        # "选项X" named in the middle of a step; the final choice sets the option a later comment is about.
        (RIGHT, "B", ["我们来看选项D：空气是纯净物，这个说法是错误的。", "正确答案是：D"], []),
        (RIGHT, "B", ["正确答案是：D", "这个说法是正确的。"], [(1, "D", "chosen")]),
        # An option named after a list number, then a bare verdict right after it: that verdict's step.
        (RIGHT, "B", ["1. **选项A：水是单质**", "- 这个选项是正确的。"], [(1, "A", "chosen")]),
        # A bare verdict after a comment on the option rests on the comment.
        (RIGHT, "B", ["A. 水是单质", "水由一种元素组成。", "这是正确的。"], [(1, "A", "chosen")]),
        # A verdict that gives its reason stays where it is.
        (RIGHT, "B", ["A. 水是单质", "水由氢氧组成。", "这是正确的，因为水是纯净物。"], [(2, "A", "chosen")]),
        # A step comparing two options gives no verdict.
        (RIGHT, "B", ["选项A和选项C都是正确的。"], []),
    ],
)
def test_wrong_verdicts(problem: str, gold: str, steps: list[str], expected: list[tuple[int, str, str]]) -> None:
    assert [(v.step, v.option, v.said) for v in wrong_verdicts(problem, steps, gold)] == expected


def test_no_options_or_no_letter_gold_gives_nothing() -> None:
    assert wrong_verdicts("1+1=____", ["1+1=3，这个说法是正确的。"], "2") == []
    assert wrong_verdicts(RIGHT, ["A. 水是单质", "这个说法是正确的。"], "$$2$$") == []


def test_the_detector_needs_the_gold_answer_and_flags_the_step() -> None:
    steps = ["A. 水是单质", "这个说法是正确的。"]
    detector = OptionVerdicts()
    assert "reference" in detector.needs
    found = detector.find(Evidence(RIGHT, steps, [], reference=Reference("B", "氧气能支持燃烧。", False)))
    assert [len(f) for f in found.steps] == [0, 1]
    assert found.steps[1][0].kind == "wrong_verdict" and "A" in found.steps[1][0].message


def test_a_runaway_step_is_read_in_linear_time() -> None:
    import time

    step = "A. " + "这个说法是正确的吗" * 50_000
    start = time.process_time()  # CPU time of this process: other jobs on a busy machine do not count (#37)
    wrong_verdicts(RIGHT, [step] * 20, "B")
    assert time.process_time() - start < 2.0


def test_a_gold_answer_without_an_analysis_is_a_reference_for_the_verdicts() -> None:
    """A bank question with a gold answer and no analysis (28 of the first Chinese file's 159 development-half
    questions) still has its options checked, and its final choice checked against the gold answer."""
    from reasoning_metrics.metaeval.detectors import reference_of
    from reasoning_metrics.metaeval.solution import from_first_error
    from reasoning_metrics.verify.detectors.reference import AgainstReference
    from reasoning_metrics.verify.rules.arithmetic import check_steps

    steps = ["A. 水是单质", "这个说法是正确的。", "故选A"]
    solution = from_first_error("q/m", RIGHT, steps, 1, "zh", {"gold": ["B"], "analysis": "", "graded_correct": False})
    reference = reference_of(solution)
    assert reference is not None and reference.answer == "B" and reference.analysis == ""
    evidence = Evidence(RIGHT, steps, check_steps(steps), reference=reference)
    assert [len(f) for f in OptionVerdicts().find(evidence).steps] == [0, 1, 0]
    assert [[f.kind for f in flags] for flags in AgainstReference().find(evidence).steps] == [
        [],
        [],
        ["reference_answer"],
    ]
    bare = from_first_error("q/m", RIGHT, steps, 1, "zh", {"gold": [], "analysis": " "})
    assert reference_of(bare) is None


FILTRATE = (
    "在硝酸铜溶液中加入一定量锌粉，反应停止后过滤，滤液仍为蓝色，下列判断正确的是（　　）\n"
    "A. 滤渣中一定有铜和锌\nB. 滤渣中一定有锌\nC. 滤液中一定有硝酸铜，可能有硝酸锌\nD. 滤液中一定有硝酸铜、硝酸锌"
)
GASES = (
    "一氧化氮是无色气体，难溶于水，密度比空气略大，在空气中能与氧气迅速反应。收集一氧化氮应采用的收集方法是（　　）\nA. 排水集气法或向上排空气集气法\nB. 排水集气法\n"
    "C. 向上排空气集气法\nD. 向下排空气集气法"
)
NOISE = (
    "控制噪声可以从三个方面入手，下列说法正确的是（　　）\nA. 摩托车安装消声器是为了在人耳处减弱噪声\n"
    "B. 在城市中禁鸣汽车喇叭是为了阻断噪声的传播\nC. 剧院的内墙要用吸音材料来装饰是为了防止噪声产生\n"
    "D. 在飞机旁工作的人员要佩带耳罩是为了在人耳处减弱噪声"
)
WRONG_LONG = "下列说法错误的是（　　）\nA. 水是由氢元素和氧元素组成的\nB. 分子的运动是无规则的\nC. 铁丝在空气中剧烈燃烧\nD. 空气是混合物"


@pytest.mark.parametrize(
    ("problem", "gold", "steps", "expected"),
    [
        # A non-gold option's words stated as a fact, with no option named: where the chain takes its side.
        (FILTRATE, "D", ["反应生成硝酸锌和铜。", "2. **过滤过程**：滤液中一定有铜和锌。", "最终答案是：D"], [(1, "A")]),
        (
            GASES,
            "B",
            ["一氧化氮难溶于水。", "因此，收集一氧化氮应采用向上排空气集气法。", "最终答案是：B."],
            [(1, "C")],
        ),
        # Words that cover two options (here C and D once the stem no longer holds 空气) name neither.
        (GASES.split("。", 1)[1], "B", ["因此，收集一氧化氮应采用向上排空气集气法。"], []),
        # The gold option's words are a true statement in a question asking for the true one: nothing.
        (FILTRATE, "D", ["所以滤液中一定有硝酸铜和硝酸锌。"], []),
        # Asking for the wrong statement: the gold option is the false one, stating it as a fact is the error...
        (WRONG_LONG, "C", ["铁丝在空气中会剧烈燃烧，火星四射。"], [(0, "C")]),
        # ... and a non-gold option's words are true there.
        (WRONG_LONG, "C", ["分子的运动是无规则的，这是分子动理论的内容。"], []),
        # A comment on the option the step is about is the option-by-option walk, not a claim
        # (its verdict, if any, is wrong_verdicts' to check).
        (FILTRATE, "D", ["A. 滤渣中一定有铜和锌", "- 滤渣中一定有铜和锌，锌过量时才会这样。"], []),
        # Steps listing the options one after another restate the question.
        (
            NOISE,
            "D",
            ["首先，摩托车安装消声器是为了在人耳处减弱噪声；", "其次，在城市中禁鸣汽车喇叭是为了阻断噪声的传播；"],
            [],
        ),
        (NOISE, "D", ["在城市中禁鸣汽车喇叭是为了阻断噪声的传播。"], [(0, "B")]),
        # A step that talks about the options or the question is not a statement of fact.
        (FILTRATE, "D", ["题目说滤渣中一定有铜和锌。"], []),
    ],
)
def test_a_step_stating_an_options_words_as_fact(
    problem: str, gold: str, steps: list[str], expected: list[tuple[int, str]]
) -> None:
    found = asserted_options(problem, steps, gold)
    assert [(v.step, v.option) for v in found] == expected
    assert all(v.said == "stated" for v in found)


def test_the_detector_flags_a_stated_option_in_chinese() -> None:
    steps = ["反应生成硝酸锌和铜。", "2. **过滤过程**：滤液中一定有铜和锌。", "最终答案是：D"]
    found = OptionVerdicts().find(Evidence(FILTRATE, steps, [], reference=Reference("D", "", True)))
    assert [len(f) for f in found.steps] == [0, 1, 0]
    flag = found.steps[1][0]
    assert flag.kind == "wrong_verdict" and "states the words of option A as a fact" in flag.message
    assert "把选项 A 的内容当作事实陈述，与标准答案相反" in (flag.message_zh or "")
