"""CMMLU's analyses as the paper counts them (#31 items 5 and 8): questions with negation words and with
sub-options, over the whole released test, with counts and Wilson intervals (``k12eval kg stats``).

The cue rules were chosen on the development half of CMMLU's subjects (``half_of(subject key)``, 29 of
67) and are reported on both halves. A slice of nine real rows (tests/fixtures/cmmlu_slice, CC BY-NC-SA 4.0,
attributed there) is checked by hand; the whole test is read from ``$K12EVAL_CMMLU`` (the release's
``data/test`` folder) and skipped without it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.importers import load_questions
from reasoning_metrics.metaeval.halves import half_of
from reports import analyses

SLICE = Path(__file__).resolve().parents[1] / "fixtures" / "cmmlu_slice" / "test"

# question id -> (negation, sub-options), read by a person
BY_HAND = {
    "cmmlu/test/business_ethics/91": (False, True),  # a工资待遇；b工作性质；c…；d…, options abcd / acd
    "cmmlu/test/college_medicine/259": (True, False),  # 与…的发病无关的因素是
    "cmmlu/test/elementary_mathematics/159": (False, False),  # 已知a是…，b是…: variables, not statements
    "cmmlu/test/ethnology/55": (True, False),  # …除了下列哪项: EXCEPT
    "cmmlu/test/high_school_biology/104": (False, True),  # （1）…（2）…, options （2）或（3）
    "cmmlu/test/high_school_politics/135": (False, True),  # 网站的开通a方便了… b加强了…, options ab / cd
    "cmmlu/test/logical/95": (False, False),  # 有的a是b；有的a不是b: the negation is in the material
    "cmmlu/test/machine_learning/27": (True, False),  # 我们应该做除了下列哪项的变量选择的考虑
    "cmmlu/test/marketing/137": (True, False),  # 下列不属于…的是
}


def _stats(path: Path) -> dict[str, dict[str, float]]:
    result = CliRunner().invoke(app, ["kg", "stats", str(path), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])["features"]


def test_the_slice_by_hand() -> None:
    questions = load_questions(SLICE).questions
    assert {q.id: (analyses.has_negation(q.stem), analyses.has_sub_options(q)) for q in questions} == BY_HAND
    features = _stats(SLICE)
    assert (features["negation"]["n"], features["negation"]["of"]) == (4, 9)
    assert (features["sub_options"]["n"], features["sub_options"]["of"]) == (3, 9)
    assert features["sub_options"]["low"] == pytest.approx(0.1206, abs=5e-4)  # Wilson 3/9: 12.1-64.6 %
    assert features["sub_options"]["high"] == pytest.approx(0.6458, abs=5e-4)


@pytest.mark.parametrize(
    ("stem", "options", "expected"),
    [
        ("网站的开通a方便了公民 b加强了党同人民群众的联系 c拓宽了渠道", ["ab", "cd", "bc", "ad"], True),
        ("下列有利于发展的措施有a大力发展职业教育 b建立劳动力市场", ["ab", "a", "b", "ba"], True),  # options alone
        ("a、b、c、d为原子序数依次增大的短周期主族元素，下列叙述正确的是", ["甲", "乙", "丙", "丁"], False),
        ("某遗传病受A、a和B、b控制，a和b均为致病基因", ["甲", "乙", "丙", "丁"], False),
        ("对以下说法的判断为。1.春分日白天为12小时；2.夏至日正午太阳高度最高", ["全部正确", "一个正确"], True),
        ("测得 x=1.5，y=2.5，则", ["1", "2"], False),
        ("①水 ②冰 中属于液体的是", ["①", "②"], True),
        ("玉米宽叶（A）对窄叶（a）为显性", ["甲", "乙"], False),  # gene symbols, not a list
    ],
)
def test_sub_option_forms(stem: str, options: list[str], expected: bool) -> None:
    from tests._runs import question

    assert analyses.has_sub_options(question("x", "政治", "a", "b", stem=stem, options=options)) is expected


def test_the_shared_six_subjects(shared_data: Path) -> None:
    """The six subjects of ../shared/data/cmmlu (1,202 questions): what the docstrings quoted before (#31 item 5)."""
    features = _stats(shared_data / "cmmlu" / "test")
    assert (features["negation"]["n"], features["negation"]["of"]) == (98, 1202)
    assert (features["sub_options"]["n"], features["sub_options"]["of"]) == (41, 1202)


CMMLU = os.environ.get("K12EVAL_CMMLU")


@pytest.mark.slow
@pytest.mark.skipif(not CMMLU, reason="set K12EVAL_CMMLU to CMMLU's released data/test folder")
def test_the_whole_released_test_and_both_halves() -> None:
    """The figures the docstrings and docs/report.md quote: the whole test by ``kg stats``, the halves here."""
    folder = Path(str(CMMLU))
    features = _stats(folder)
    assert (features["negation"]["n"], features["negation"]["of"]) == (1134, 11582)
    assert (features["sub_options"]["n"], features["sub_options"]["of"]) == (201, 11582)
    questions = load_questions(folder).questions
    halves = {
        half: [q for q in questions if half_of(str(q.extra["subject_key"])) == half] for half in ("dev", "confirm")
    }
    counts = {
        half: (sum(analyses.has_negation(q.stem) for q in qs), sum(map(analyses.has_sub_options, qs)), len(qs))
        for half, qs in halves.items()
    }
    assert counts == {"dev": (477, 81, 4837), "confirm": (657, 120, 6745)}
    politics = [q for q in questions if q.extra["subject_key"] == "high_school_politics"]
    lettered = [q for q in politics if all(o.text.strip().isalpha() and o.text.isascii() for o in q.options)]
    assert len(lettered) == 58 and all(map(analyses.has_sub_options, lettered))  # 0 of 58 before
    # The paper's "about 10.8 %" is no share of this test: 288 questions (2.5 %) hold any label-like mark at all.
    import re

    mark = re.compile(r"[①-⑳]|[(（]\s*[1-9a-e]\s*[)）]|(?<![A-Za-z0-9.])[1-5a-e][.、．:：]|[ⅠⅡⅢ]")
    marked = [q for q in questions if mark.search(q.stem + "\n" + "\n".join(o.text for o in q.options))]
    assert len(marked) == 288
