"""Xiezhi in the report: a question under each of its disciplines, and Specialty vs Interdiscipline (#16 item 6)."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.importers import load_questions
from tests.importer_helpers import FIXTURES

TAXONOMY = FIXTURES / "xiezhi" / "discipline_taxonomy"


def _record(question: str, labels: list[str], answer: str) -> str:
    options = "\n".join(["甲", "乙", "丙", "丁"])
    return json.dumps(
        {"question": question, "labels": labels, "answer": answer, "options": options}, ensure_ascii=False
    )


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    root = tmp_path / "xiezhi"
    shutil.copytree(TAXONOMY, root / "discipline_taxonomy")
    (root / "xiezhi_spec_chn.jsonl").write_text(
        _record("一题_____", ["数学", "理学"], "甲")
        + "\n"
        # two 门类: the graph places it under 理学, the discipline table counts it under 工学 too
        + _record("二题_____", ["数学", "理学", "工学"], "乙")
        + "\n",
        encoding="utf-8",
    )
    # four disciplines: Interdiscipline by the paper's rule
    (root / "xiezhi_inter_chn.jsonl").write_text(
        _record("三题_____", ["物理学", "理学", "数学", "工学"], "甲") + "\n", encoding="utf-8"
    )
    return root


def test_the_split_follows_the_papers_rule_not_the_file_name(bank: Path) -> None:
    # #26 item 1: 3 disciplines or fewer is Specialty, 4 or more Interdiscipline, whatever the file is called.
    (bank / "xiezhi_spec_chn.jsonl").write_text(
        (bank / "xiezhi_spec_chn.jsonl").read_text(encoding="utf-8")
        + _record("四题_____", ["数学", "理学", "工学", "物理学"], "丙")
        + "\n",
        encoding="utf-8",
    )
    (bank / "xiezhi_train_chn.jsonl").write_text(_record("五题_____", ["数学"], "甲") + "\n", encoding="utf-8")
    questions = load_questions(bank).questions
    assert {q.id: q.extra.get("xiezhi_set") for q in questions} == {
        "xiezhi/xiezhi_inter_chn/1": "interdiscipline",
        "xiezhi/xiezhi_spec_chn/1": "specialty",
        "xiezhi/xiezhi_spec_chn/2": "specialty",
        "xiezhi/xiezhi_spec_chn/3": "interdiscipline",
        "xiezhi/xiezhi_train_chn/1": "specialty",
    }
    # the release's split is the file's (#31 item 4): the training file's question is a few-shot exemplar, not a test one
    assert {q.id: q.split for q in questions if q.split != "test"} == {"xiezhi/xiezhi_train_chn/1": "train"}


def _table(report: Path, name: str) -> list[dict[str, str]]:
    with (report / "tables" / f"{name}.csv").open(encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def test_disciplines_count_every_label_and_the_split_is_reported(bank: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    ids = [q.id for q in load_questions(bank).questions]
    lines = [{"question_id": qid, "output": "正确答案是：A"} for qid in ids]  # right where the answer is 甲 (A)
    answers.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    run = tmp_path / "run"
    args = ["run", str(bank), "-m", "m", "-b", "replay", "-B", f"path={answers}", "-o", str(run)]
    assert CliRunner().invoke(app, [*args, "--variant", "original"]).exit_code == 0  # 3 questions: too few for 50
    report = tmp_path / "report"
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(report), "--no-plots"])
    assert result.exit_code == 0, result.output
    disciplines = {r["discipline"]: (r["n"], r["accuracy"]) for r in _table(report, "xiezhi_disciplines")}
    assert disciplines == {
        "理学": ("3", "66.7"),
        "数学": ("3", "66.7"),
        "工学": ("2", "50.0"),
        "物理学": ("1", "100.0"),
    }
    (split,) = _table(report, "xiezhi_split")
    assert (split["Specialty n"], split["Specialty accuracy"]) == ("2", "50.0")
    assert (split["Interdiscipline n"], split["Interdiscipline accuracy"]) == ("1", "100.0")
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "Specialty vs Interdiscipline" in page
