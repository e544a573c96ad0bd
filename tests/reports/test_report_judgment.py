"""``k12eval report --judgment per-item|per-statement``: CK12 Table 1's judgment column and its caption (#16 item 4);
the rule of the runs' protocol by default, reaching overall, nodes.csv and Table 3 (#26 item 5)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._runs import question, write_bank

QUESTIONS = [
    question(
        "j2", "物理", "力学", "浮力", "judgment", options=["浮力竖直向上。", "浮力与密度无关。"], answer=[True, False]
    ),
    question("j1", "物理", "力学", "重力", "judgment", options=["重力竖直向下。"], answer=[True]),
]
OUTPUTS = {"j2": "1. 对 2. 对", "j1": "1. 对"}  # j2: one of its two statements right; j1 right


@pytest.fixture
def run(tmp_path: Path) -> Path:
    bank = write_bank(tmp_path / "bank", QUESTIONS)
    answers = tmp_path / "answers.jsonl"
    lines = [{"question_id": qid, "output": text} for qid, text in OUTPUTS.items()]
    answers.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "run"
    args = ["run", str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def _report(run: Path, out: Path, *extra: str) -> Path:
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(out), "--no-plots", *extra])
    assert result.exit_code == 0, result.output
    return out


def _judgment_cell(report: Path) -> str:
    with (report / "tables" / "ck12_table1_type_by_mode.csv").open(encoding="utf-8-sig") as handle:
        (row,) = list(csv.DictReader(handle))
    return row["judgment"]


@pytest.mark.parametrize(
    ("flags", "cell", "caption"),
    [
        ((), "— / 66.7", "Judgment scored per statement"),  # the CK12 protocol's rule: its released scorer
        (("--judgment", "per-item"), "— / 50.0", "Judgment scored per item"),
        (("--judgment", "per-statement"), "— / 66.7", "Judgment scored per statement"),  # 2 of 3 statements
    ],
)
def test_table1_scores_judgment_as_asked_and_its_caption_says_so(
    run: Path, tmp_path: Path, flags: tuple[str, ...], cell: str, caption: str
) -> None:
    report = _report(run, tmp_path / "report", *flags)
    assert _judgment_cell(report) == cell
    table_md = (report / "tables" / "ck12_table1_type_by_mode.md").read_text(encoding="utf-8")
    assert caption in table_md and caption in (report / "tables.md").read_text(encoding="utf-8")
    page = (report / "index.html").read_text(encoding="utf-8")
    assert caption in page
    other = "per statement" if "per item" in caption else "per item"
    assert f"Judgment scored {other}" not in table_md + page


def test_the_python_api_takes_the_judgment_scoring(run: Path, tmp_path: Path) -> None:
    import k12eval

    report = k12eval.report(run, tmp_path / "api", judgment="per-statement", plots=False)
    assert _judgment_cell(report.out) == "— / 66.7"


def test_an_unknown_judgment_scoring_is_one_line(run: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(tmp_path / "r"), "--judgment", "per-blank"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: --judgment 'per-blank': choose one of per-item, per-statement"


def _nodes_root(report: Path) -> dict[str, str]:
    with (report / "nodes.csv").open(encoding="utf-8-sig") as handle:
        rows = [r for r in csv.DictReader(handle) if r["slice"] == "all" and r["node"] == "all"]
    (row,) = rows
    return row


@pytest.mark.parametrize(
    ("flags", "n", "correct", "level1"),
    [
        ((), "3", "2", "66.7"),  # per statement: 2 of 3 statements
        (("--judgment", "per-item"), "2", "1", "50.0"),  # per item: 1 of 2 questions
    ],
)
def test_the_judgment_rule_reaches_overall_nodes_and_table3(
    run: Path, tmp_path: Path, flags: tuple[str, ...], n: str, correct: str, level1: str
) -> None:
    report = _report(run, tmp_path / "report", *flags)
    root = _nodes_root(report)
    assert (root["n"], root["correct"]) == (n, correct)
    with (report / "tables" / "ck12_table1_type_by_mode.csv").open(encoding="utf-8-sig") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["overall"] == f"— / {level1}"
    with (report / "tables" / "ck12_table3_level1.csv").open(encoding="utf-8-sig") as handle:
        (table3,) = list(csv.DictReader(handle))
    assert table3["level1"] == "力学" and list(table3.values())[-1] == level1
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    assert summary["judgment"] == ("per-item" if flags else "per-statement")


def test_the_run_records_its_judgment_rule_and_a_caption_names_no_paper_it_cannot_quote(run: Path) -> None:
    header = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert header["protocol"]["name"] == "ck12" and header["protocol"]["judgment_rule"] == "per-statement"
    from reports.tables import type_by_mode_caption

    assert "the CK12 paper)" not in type_by_mode_caption("per-item")
    assert "released scorer" in type_by_mode_caption("per-statement")
