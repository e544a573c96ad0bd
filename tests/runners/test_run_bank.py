"""A run's questions are rebuilt for scoring and the report exactly as the run asked them (runners.bank)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.records import Question
from reasoning_metrics.run_scoring import run_chains
from reports.runs import load_runs
from runners.store import RunStore
from tests._runs import question, write_bank

QUESTIONS = [
    question(
        f"q{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题：选出正确的一项",
        options=[f"{name}选项的文字{i}" for name in "甲乙丙丁"], answer=["A"],
    )
    for i in range(6)
]  # fmt: skip


def _run(bank: Path, out: Path, variant: str, seed: int, answers: Path) -> None:
    args = ["run", str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out)]
    # questions without a recorded answer fail; these tests are about the bank, not failures
    more = ["--mode", "zero-shot-cot", "--variant", variant, "--seed", str(seed), "--max-failures", "100%"]
    result = CliRunner().invoke(app, [*args, *more])
    assert result.exit_code == 0, result.output


def _sent(prompt: str | list[dict[str, str]]) -> str:
    return prompt if isinstance(prompt, str) else "\n".join(m["content"] for m in prompt)


@pytest.mark.parametrize("variant", ["shuffled", "distractors", "options-6"])
def test_a_generated_variant_is_scored_and_reported_with_the_options_the_model_saw(
    variant: str, tmp_path: Path
) -> None:
    bank = write_bank(tmp_path / "bank", [*QUESTIONS, question("o1", "物理", "力学", "浮力", options=["力", "热"])])
    answers = tmp_path / "answers.jsonl"
    lines = [{"question_id": q.id, "output": "先看选项。\n所以答案是 A。"} for q in QUESTIONS]
    answers.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "run"
    _run(bank, out, variant, 11, answers)
    records = {r.question_id: r for r in RunStore(out).records() if r.question_id in {q.id for q in QUESTIONS}}
    moved = [qid for qid, r in records.items() if r.gold != ["A"]]
    assert moved, "the seed moved no gold answer: the test would not tell the variant from the original"

    # with the options in the source, as --source-with-options scores them (the default scores the stem alone)
    chains = {record.question_id: chain for record, chain in run_chains(out, with_options=True).chains}
    runs, warnings = load_runs([out])
    assert warnings == []
    for qid, record in records.items():
        reported: Question = runs[0].questions[qid]
        # the report shows the options in the order and with the letters the prompt had, and the same gold
        assert reported.answer == record.gold
        listed = [f"{o.label}. {o.text}" for o in reported.options]
        assert all(line in chains[qid].source for line in listed)
        positions = [_sent(record.prompt).find(o.text) for o in reported.options]
        assert -1 not in positions and positions == sorted(positions), qid


def test_the_report_warns_when_the_bank_changed_after_the_run(tmp_path: Path) -> None:
    bank = write_bank(tmp_path / "bank", QUESTIONS)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question_id": "q0", "output": "A"}) + "\n", encoding="utf-8")
    _run(bank, tmp_path / "run", "original", 0, answers)
    shutil.rmtree(tmp_path / "bank")
    write_bank(tmp_path / "bank", [*QUESTIONS[:5], question("q5", "数学", "函数", "一次函数", stem="改过的题干")])
    _, warnings = load_runs([tmp_path / "run"])
    assert any("changed since the run answered it" in w for w in warnings), warnings
