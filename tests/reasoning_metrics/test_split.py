"""Step splitting: own cases for both languages, and real CK12 analyses when ../shared/data is present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoning_metrics.split import split_reference, split_steps


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("First add. Then multiply! Done?", ["First add.", "Then multiply!", "Done?"]),
        ("Pi is about 3.14 here. Next we round.", ["Pi is about 3.14 here.", "Next we round."]),
        ("Use e.g. the U.S. rule. Mr. Smith agrees.", ["Use e.g. the U.S. rule.", "Mr. Smith agrees."]),
        ("It costs $3. Then we pay.", ["It costs $3.", "Then we pay."]),
        ("We know $x = 2. Y$ holds. Next.", ["We know $x = 2. Y$ holds.", "Next."]),
        ("So $$a. B$$ is true. Next.", ["So $$a. B$$ is true.", "Next."]),
        ("1. Compute x.\n2. Compute y.\nStep 3: done.", ["1. Compute x.", "2. Compute y.", "Step 3: done."]),
        ('He said "stop." Then left.', ['He said "stop."', "Then left."]),
        ("a line\n\n\nanother line", ["a line", "another line"]),
        ("", []),
        ("   \n ", []),
    ],
)
def test_english_steps(text: str, steps: list[str]) -> None:
    assert split_steps(text, "en") == steps


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("因为a>0，所以b>0。故选B！对吗？", ["因为a>0，所以b>0。", "故选B！", "对吗？"]),
        ("面积为3．14平方米．因此答案是B.接下来", ["面积为3．14平方米．", "因此答案是B.", "接下来"]),
        (
            "由题意得：$$a+2=6$$，\n\n解得：$$a=4$$；故选：$${B}$$．",
            ["由题意得：$$a+2=6$$，", "解得：$$a=4$$；", "故选：$${B}$$．"],
        ),
        ("$$x。y$$成立。下一步", ["$$x。y$$成立。", "下一步"]),
        ("∵a=b，∴c=d", ["∵a=b，", "∴c=d"]),
        ("又∵$$b=4$$，∴$$a=2$$", ["又∵$$b=4$$，", "∴$$a=2$$"]),
        ("解：（1）当x>0时，y>0；(2)当x<0时，y<0", ["解：（1）当x>0时，y>0；", "(2)当x<0时，y<0"]),
        ("①负数没有平方根，②正数有两个平方根", ["①负数没有平方根，", "②正数有两个平方根"]),
        ("由①②得x=1，代入（1）式", ["由①②得x=1，代入（1）式"]),
        ("1.先求x\n2.再求y", ["1.先求x", "2.再求y"]),
    ],
)
def test_chinese_steps(text: str, steps: list[str]) -> None:
    assert split_steps(text, "zh") == steps


def test_language_is_detected_when_not_given() -> None:
    # "." before a Chinese character ends a step only in Chinese text.
    assert split_steps("答案是B.接下来看") == ["答案是B.", "接下来看"]


def test_reference_paragraphs_are_steps() -> None:
    analysis = "∵$$a>0$$，\n且$$b>0$$，\n\n∴$$ab>0$$．\n\n故选$${A}$$．\n"
    assert split_reference(analysis) == ["∵$$a>0$$， 且$$b>0$$，", "∴$$ab>0$$．", "故选$${A}$$．"]


def test_reference_without_blank_lines_is_split_like_a_chain() -> None:
    assert split_reference("先求x。再求y。") == ["先求x。", "再求y。"]


def _analyses(shared_data: Path, per_file: int = 40) -> list[str]:
    """Non-empty analyses from every subject and question type of the middle-school release."""
    texts: list[str] = []
    for file in sorted((shared_data / "ck12" / "original_data" / "初中").glob("*/*.jsonl")):
        with file.open(encoding="utf-8") as handle:
            found = [a for a in (json.loads(line)["analysis"] for line in handle) if a.strip()]
        texts += found[:per_file]
    return texts


@pytest.mark.shared_data
def test_real_ck12_analyses_split_without_cutting_latex(shared_data: Path) -> None:
    analyses = _analyses(shared_data)
    assert len(analyses) > 100
    multi = 0
    for analysis in analyses:
        steps = split_steps(analysis, "zh")
        paragraphs = split_reference(analysis, "zh")
        assert steps and paragraphs
        for step in steps + paragraphs:
            assert step == step.strip() and step
            assert step.count("$$") % 2 == 0, (analysis, step)  # no display formula is cut in two
        squeeze = "".join(analysis.split())
        assert "".join("".join(steps).split()) == squeeze  # nothing lost or reordered
        # every blank-line paragraph is at least one sentence step
        assert len(steps) >= len(paragraphs)
        multi += len(paragraphs) >= 2
    assert multi > len(analyses) / 2  # most CK12 analyses have several paragraphs


@pytest.mark.shared_data
def test_real_ck12_because_therefore_chain(shared_data: Path) -> None:
    file = shared_data / "ck12" / "original_data" / "初中" / "数学" / "单选.jsonl"
    chains = []
    with file.open(encoding="utf-8") as handle:
        for line in handle:
            analysis = json.loads(line)["analysis"]
            if "∵" in analysis and "∴" in analysis:
                chains.append(analysis)
    assert chains
    for analysis in chains[:50]:
        steps = split_steps(analysis, "zh")
        # a step never carries a "∴" after its first characters: each conclusion starts its own step
        for step in steps:
            assert "∴" not in step[1:] or step[: step.index("∴", 1)].rstrip()[-1:] not in "，。；．,"


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        (
            "A．光的波长不同．故A正确；\n\nB．卫星传递信息，故B正确；",
            ["A．光的波长不同．", "故A正确；", "B．卫星传递信息，故B正确；"],
        ),
        (
            "$$\\rm A$$．引流，故正确；\n\n$$\\rm B$$．漏斗",
            ["$$\\rm A$$．引流，故正确；", "$$\\rm B$$．漏斗"],
        ),
        ("Step 1:\nAdd them.", ["Step 1: Add them."]),
        ("1.\nCompute x.", ["1. Compute x."]),
    ],
)
def test_bare_labels_stay_with_their_text(text: str, steps: list[str]) -> None:
    assert split_steps(text) == steps
