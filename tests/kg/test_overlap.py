"""CMMLU's overlap check between two banks (#26 item 7): stem and sorted options, punctuation removed, exact."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from k12eval.cli import app
from kg.overlap import find_overlap, overlap_key
from tests.importer_helpers import ck12_record, write_jsonl
from tests.qfactory import single

runner = CliRunner()


def test_the_same_question_with_shuffled_options_and_other_punctuation_overlaps() -> None:
    mine = single(("上海", "北京", "广州", "深圳"), "B", stem="中国的首都是（  ）", id="a")
    theirs = single(("深圳", "广州", "北京", "上海"), "C", stem="中国的首都是：", id="b")
    assert overlap_key(mine) == overlap_key(theirs)
    assert find_overlap([mine], [theirs]).pairs == [("a", "b")]


def test_a_changed_option_stem_or_sign_is_another_question() -> None:
    mine = single(("1", "2", "3", "4"), "B", stem="x+1=2, x=?", id="a")
    others = [
        single(("1", "2", "3", "5"), "B", stem="x+1=2, x=?", id="option"),
        single(("1", "2", "3", "4"), "B", stem="x+1=3, x=?", id="stem"),
        single(("1", "2", "3", "4"), "B", stem="x×1=2, x=?", id="sign"),  # a symbol is not punctuation
    ]
    found = find_overlap([mine], others)
    assert found.pairs == [] and (found.questions_a, found.questions_b, found.matched_a) == (1, 3, 0)


def test_overlap_command_counts_and_writes_the_pairs(tmp_path: Path) -> None:
    a = write_jsonl(
        tmp_path / "a" / "初中" / "数学" / "单选.jsonl",
        [ck12_record(id="a1"), ck12_record(id="a2", prompt="2+2=（　　）")],
    )
    shuffled = ck12_record(id="=b1", answer_option=["A.4", "B.3", "C.2", "D.1"], answer="C")
    b = write_jsonl(tmp_path / "b" / "初中" / "数学" / "单选.jsonl", [shuffled])
    out = tmp_path / "pairs.csv"
    result = runner.invoke(app, ["kg", "overlap", str(a), str(b), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["questions"], summary["other_questions"], summary["matched"]) == (2, 1, 1)
    assert out.read_text(encoding="utf-8-sig").splitlines() == ["id,other_id", "a1,'=b1"]  # no formula


def test_ck12s_shuffled_variant_overlaps_its_original_whole(shared_data: Path) -> None:
    samples = shared_data / "ck12" / "samples"
    result = runner.invoke(
        app, ["kg", "overlap", str(samples / "shuffle_options"), str(samples / "original_data"), "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["questions"], summary["matched"], summary["pairs"]) == (124, 124, 124)
