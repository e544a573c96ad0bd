"""``--subjects`` / ``--types`` take comma lists as well as repeated options."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from k12eval.cli import app
from k12eval.cli._common import comma_list
from kg.importers import load_questions
from runners.store import RunStore

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample"


def test_comma_list_splits_repeats_and_full_width_commas() -> None:
    assert comma_list(["数学,物理", "化学", " 物理 ", "生物，历史", ""]) == ("数学", "物理", "化学", "生物", "历史")
    assert comma_list(None) == ()


def test_run_keeps_the_subjects_and_types_of_comma_lists(tmp_path: Path) -> None:
    questions = load_questions(SAMPLE).questions
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(json.dumps({"question_id": q.id, "output": "答案是 A"}) + "\n" for q in questions), encoding="utf-8"
    )
    out = tmp_path / "run"
    args = ["run", str(SAMPLE), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out)]
    result = CliRunner().invoke(app, [*args, "-s", "数学,物理", "--subjects", "化学", "-t", "single_choice,判断"])
    assert result.exit_code == 0, result.output
    wanted = {
        q.id
        for q in questions
        if q.subject in {"数学", "物理", "化学"} and q.type.value in {"single_choice", "judgment"}
    }
    records = list(RunStore(out).iter_records())
    assert wanted and {r.question_id for r in records} == wanted
