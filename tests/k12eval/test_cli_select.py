"""``--select NAME`` on ``run``, ``score`` and ``report`` (CK12 Table 2's reasoning subset) (#16 item 3)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.importers import load_questions
from tests._runs import question, write_bank, write_scores

THREE = "先设未知数。\n\n再列方程。\n\n解得答案。"
TWO = "直接计算。\n\n故选A。"
QUESTIONS = [
    question("m3a", "数学", "函数", "一次函数", stem="一次函数的斜率", analysis=THREE),
    question("m2", "数学", "函数", "一次函数", stem="二次函数的顶点", analysis=TWO),
    question("m3b", "数学", "几何", "三角形", "fill_in_blank", answer=["5"], stem="三角形边长____", analysis=THREE),
    question("p3", "物理", "力学", "浮力", stem="浮力的方向", analysis=THREE),
]
IN_SUBSET = ["m3a", "m3b"]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", QUESTIONS)


@pytest.fixture
def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    lines = [{"question_id": q.id, "output": "先想一想。\n\n再算。\n\n正确答案是：A"} for q in QUESTIONS]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def _run(bank: Path, answers: Path, out: Path, *extra: str) -> Any:
    args = ["run", str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out), *extra]
    return CliRunner().invoke(app, args, env={"COLUMNS": "160"})


def _ids(run: Path) -> list[str]:
    lines = (run / "records.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question_id"] for line in lines]


def test_run_asks_only_the_selection_and_records_it(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = _run(bank, answers, out, "--select", "reasoning-subset")
    assert result.exit_code == 0, result.output
    assert sorted(_ids(out)) == IN_SUBSET
    header = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert header["selection"] == "reasoning-subset" and header["data"]["questions"] == len(IN_SUBSET)
    everything = tmp_path / "all"
    assert _run(bank, answers, everything).exit_code == 0
    assert sorted(_ids(everything)) == sorted(q.id for q in QUESTIONS)


def test_resuming_with_another_selection_is_refused_naming_the_field(bank: Path, answers: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(bank, answers, out, "--select", "reasoning-subset").exit_code == 0
    result = _run(bank, answers, out)
    assert result.exit_code == 2
    assert "selection: 'reasoning-subset' there, 'all' now" in result.output
    assert _run(bank, answers, out, "--select", "reasoning-subset").exit_code == 0  # the same: resumed


@pytest.mark.parametrize("command", ["run", "score", "report"])
def test_an_unknown_selection_is_one_line_listing_the_names(
    command: str, bank: Path, answers: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    assert _run(bank, answers, run, "--mode", "zero-shot-cot").exit_code == 0
    args = {
        "run": ["run", str(bank), "-m", "x", "-b", "replay", "-B", f"path={answers}", "-o", str(tmp_path / "new")],
        "score": ["score", str(run)],
        "report": ["report", str(run), "-o", str(tmp_path / "report"), "--no-plots"],
    }[command]
    before = sorted(p.name for p in run.iterdir())
    result = CliRunner().invoke(app, [*args, "--select", "reasoning"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines == ["error: --select 'reasoning': choose one of all, reasoning-subset"]
    assert not (tmp_path / "new").exists() and not (tmp_path / "report").exists()
    assert sorted(p.name for p in run.iterdir()) == before  # nothing added (no score file, no lock)


def test_score_leaves_out_the_chains_outside_the_selection(bank: Path, answers: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert _run(bank, answers, run, "--mode", "zero-shot-cot", "--subjects", "物理").exit_code == 0
    # The run holds the physics question only: none of it is in the reasoning subset, so nothing is
    # scored and no model is needed (without --select the one chain would be).
    result = CliRunner().invoke(app, ["score", str(run), "--select", "reasoning-subset"])
    assert result.exit_code == 0, result.output
    assert "0 chain(s) to score, 0 already" in result.output


def test_table2_is_computed_over_the_selection_and_says_so(bank: Path, answers: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert _run(bank, answers, run, "--mode", "zero-shot-cot").exit_code == 0
    write_scores(run, [{"question_id": q.id, "scores": {"faithfulness": 0.5}} for q in QUESTIONS])

    def table2(*extra: str) -> tuple[list[dict[str, str]], str]:
        out = tmp_path / ("report" + "".join(extra))
        result = CliRunner().invoke(app, ["report", str(run), "-o", str(out), "--no-plots", *extra])
        assert result.exit_code == 0, result.output
        path = out / "tables" / "ck12_table2_cot_step_scores"
        with path.with_suffix(".csv").open(encoding="utf-8-sig") as handle:
            return list(csv.DictReader(handle)), path.with_suffix(".md").read_text(encoding="utf-8")

    rows, text = table2("--select", "reasoning-subset")
    assert [row["n"] for row in rows] == [str(len(IN_SUBSET))]
    assert "reasoning-subset" in text
    rows, text = table2()
    assert [row["n"] for row in rows] == [str(len(QUESTIONS))]
    assert "Questions: all" in text


@pytest.mark.shared_data
@pytest.mark.slow
def test_reasoning_subset_of_the_shared_middle_school_math(shared_data: Path) -> None:
    # Measured on shared/'s CK12 初中 release: 1,312 of its 2,130 math questions have more than two
    # analysis paragraphs (the paper's 7,334 are over every stage).
    from runners.selection import select

    questions = load_questions(shared_data / "ck12" / "original_data").questions
    math = [q for q in questions if q.subject == "数学"]
    assert (len(select(math, "reasoning-subset")), len(math)) == (1312, 2130)
