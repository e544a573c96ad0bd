"""OpenCompass's CircularEval as a run option (#31 item 7): rotations, their gold, and the figures of its evaluator."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval import api
from k12eval.cli import app
from runners.backends.base import GenerationRequest
from runners.circular import circular_patterns, circular_stats, origin_of, rotate
from runners.variants import make_variant
from tests.kg.test_importers_parquet import cmmlu_columns, write_parquet
from tests.qfactory import multiple, single
from tests.scripted import ScriptedBackend, prompt_text


def test_the_patterns_are_opencompass_rotations() -> None:
    # opencompass/datasets/circular.py get_circular_patterns(['A', 'B', 'C', 'D'])
    assert circular_patterns(list("ABCD")) == [tuple("ABCD"), tuple("BCDA"), tuple("CDAB"), tuple("DABC")]


def test_a_rotation_moves_option_i_to_the_patterns_letter_and_the_gold_with_it() -> None:
    question = single(("北京", "上海", "广州", "深圳"), "A")
    rotated = rotate(question, "BCDA")
    # make_circular_items: item[pattern[i]] = origin[keys[i]]; answer = pattern[keys.index(answer)]
    assert [(o.label, o.text) for o in rotated.options] == [("A", "深圳"), ("B", "北京"), ("C", "上海"), ("D", "广州")]
    assert rotated.answer == ["B"] and rotated.variant == "circular"
    assert rotated.id == f"{question.id}~circular-BCDA" and origin_of(rotated.id) == (question.id, "BCDA")
    assert rotated.extra["circular"] == {"of": question.id, "pattern": "BCDA"}


def test_the_variant_asks_single_choice_only_and_says_why_not_the_others() -> None:
    one, many = single(id="s1"), multiple(id="m1")
    gaokao = single(id="g1").model_copy(update={"extra": {"options_in_stem": True}})
    result = make_variant([one, many, gaokao], "circular")
    assert [q.id for q in result.questions] == [f"s1~circular-{p}" for p in ("ABCD", "BCDA", "CDAB", "DABC")]
    assert dict(result.skipped) == {
        "m1": "multiple_choice questions have no circular variant (CircularEval rotates one right option)",
        "g1": "its options are written in its stem (GAOKAO-Bench): they cannot be rotated",
    }
    assert [q.id for q in make_variant([gaokao], "shuffled").questions] == []  # nor shuffled, nor distractors


def test_the_figures_are_the_circular_evaluators_counted_by_hand() -> None:
    graded = [(f"q1~circular-{p}", True) for p in ("ABCD", "BCDA", "CDAB", "DABC")]
    graded += [("q2~circular-ABCD", True), ("q2~circular-BCDA", False), ("q2~circular-CDAB", False)]
    graded += [("q2~circular-DABC", False), ("q3~circular-ABCD", True), ("plain", True)]
    stats = circular_stats(graded)
    assert stats is not None and (stats.questions, stats.incomplete) == (2, 1)  # q3 lacks three rotations
    assert (stats.origin.correct, stats.origin.n) == (2, 2)  # acc_origin
    assert (stats.rotations.correct, stats.rotations.n) == (5, 8)  # acc_circular
    assert (stats.circular.correct, stats.circular.n) == (1, 2)  # perf_circular
    assert {k: r.correct for k, r in stats.at_least.items()} == {1: 2, 2: 1, 3: 1}  # more_{k}_circular
    assert stats.circular.low is not None and stats.circular.low < 0.5 < stats.circular.high  # type: ignore[operator]
    assert circular_stats([("plain", True)]) is None


def _bank(tmp_path: Path) -> Path:
    # Four questions whose gold is A, B, C, D: a model always answering "A" is right on one in the original order.
    columns = cmmlu_columns()
    rows = {key: [values[0]] * 4 for key, values in columns.items()}
    rows["A"], rows["B"], rows["C"], rows["D"] = (
        ["甲", "乙", "丙", "丁"],
        ["戊", "己", "庚", "辛"],
        ["壬", "癸", "子", "丑"],
        ["寅", "卯", "辰", "巳"],
    )
    rows["Question"] = [f"第{i}题：选出正确的一项____" for i in range(4)]
    rows["Answer"] = ["A", "B", "C", "D"]
    return write_parquet(tmp_path / "agronomy" / "test-00000-of-00001.parquet", rows).parent.parent


GOLD = {"第0题": "甲", "第1题": "己", "第2题": "子", "第3题": "巳"}


def _knows(request: GenerationRequest) -> str:
    """A model that knows each answer's text and finds its letter, wherever the rotation put it."""
    text = prompt_text(request)
    gold = next(g for q, g in GOLD.items() if q in text)
    return re.search(rf"([A-D])\. {gold}", text).group(1)  # type: ignore[union-attr]


@pytest.mark.parametrize(("answer", "circular", "origin"), [("A", 0, 1), (_knows, 4, 4)])
def test_a_run_reports_circular_accuracy_beside_plain(
    tmp_path: Path, answer: object, circular: int, origin: int
) -> None:
    backend = ScriptedBackend(answer)  # type: ignore[arg-type]
    summary = api.run(
        _bank(tmp_path), "scripted", tmp_path / "run", backend=backend, variant="circular", mode="zero-shot"
    )
    assert len(backend.requests) == 16  # 4 questions x 4 rotations, each recorded
    stats = summary.results.circular  # type: ignore[union-attr]
    assert stats is not None and stats.questions == 4
    assert (stats.circular.correct, stats.origin.correct) == (circular, origin)
    written = json.loads((tmp_path / "run" / "summary.json").read_text("utf-8"))
    assert written["circular"]["circular"]["correct"] == circular and written["variant"] == "circular"
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text("utf-8").splitlines()]
    assert len({r["question_id"] for r in records}) == 16


def test_the_circular_flag_asks_every_rotation(tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    result = CliRunner().invoke(
        app, ["run", str(bank), "-m", "x", "-o", str(tmp_path / "r"), "--circular", "--dry-run", "--limit", "4"]
    )
    assert result.exit_code == 0, result.output
    asked = re.findall(r"^## \d+/4 (\S+)", result.output, re.M)
    assert asked == [f"cmmlu/test/agronomy/0~circular-{p}" for p in ("ABCD", "BCDA", "CDAB", "DABC")]
    under_bcda = result.output.split("## 2/4")[1].split("## 3/4")[0]
    assert "A. 寅\nB. 甲\nC. 戊\nD. 壬" in under_bcda  # question 0 (A甲 B戊 C壬 D寅) rotated: A's text under B
    refused = CliRunner().invoke(app, ["run", str(bank), "-m", "x", "-o", "r", "--circular", "--variant", "shuffled"])
    assert refused.exit_code == 2 and "cannot be combined with --variant shuffled" in refused.output
