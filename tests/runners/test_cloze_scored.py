"""Cloze (完形填空) is scored blank by blank, as docs/prompts.md and docs/report.md say (#16 item 10)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from k12eval.cli import app
from kg.records import Option
from tests._runs import question, write_bank

REPO = Path(__file__).resolve().parents[2]


def test_a_cloze_question_is_scored_not_skipped(tmp_path: Path) -> None:
    one = question(
        "c1", "英语", "完形", "词汇", "cloze", options=["go", "went"], answer=["B"], stem="He __1__ and __2__"
    )
    blanks = [Option(label=o.label, text=o.text, blank=b) for b in (1, 2) for o in one.options]
    cloze = one.model_copy(update={"options": blanks, "answer": ["B", "A"]})
    bank = write_bank(tmp_path / "bank", [cloze])
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question_id": "c1", "output": "正确答案是：1. B 2. B"}) + "\n", encoding="utf-8")
    out = tmp_path / "run"
    args = ["run", str(bank), "-m", "x", "-b", "replay", "-B", f"path={answers}", "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(line) for line in (out / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    assert (record["parse_status"], record["correct"], record["partial"]) == ("ok", False, 0.5)


def test_the_docs_do_not_say_cloze_is_skipped() -> None:
    for name in ("README.md", "docs/report.md", "docs/prompts.md", "runners/records.py"):
        text = " ".join((REPO / name).read_text(encoding="utf-8").split())
        assert "cloze under CK12's protocol" not in text and "cloze in CK12's protocol" not in text, name
