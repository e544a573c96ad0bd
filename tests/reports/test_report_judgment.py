"""``k12eval report --judgment per-item|per-statement|ck12-release``: CK12 Table 1's judgment cells and its caption
(#16 item 4); the rule of the runs' protocol by default, reaching overall, nodes.csv and Table 3 (#26 item 5);
the released scorer's count beside k12eval's, and ``run`` printing what ``report`` prints (#31 items 2, 3)."""

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
OUTPUTS = {"j2": "1. 对", "j1": "1. 对"}
"""j1 right. j2 gives one verdict (right) for its two statements: k12eval reads no answer (both statements
wrong), the released scorer pairs the one verdict with the first statement and never counts the second.

per-statement: 1 of 3 statements (33.3); per-item: 1 of 2 questions (50.0); ck12-release: 2 of 2 (100.0)."""


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


def _table1(report: Path) -> dict[str, dict[str, str]]:
    with (report / "tables" / "ck12_table1_type_by_mode.csv").open(encoding="utf-8-sig") as handle:
        return {row["type"]: row for row in csv.DictReader(handle)}


def _judgment_cell(report: Path) -> str:
    row = _table1(report)["judgment"]
    return f"{row['replayed · arts']} / {row['replayed · science']}"


CAPTIONS = {
    "per-statement": "Judgment scored per statement",
    "per-item": "Judgment scored per item",
    "ck12-release": "Judgment scored by CK12's released scorer",
}


@pytest.mark.parametrize(
    ("flags", "cell", "caption"),
    [
        ((), "— / 33.3", CAPTIONS["per-statement"]),  # the CK12 protocol's rule
        (("--judgment", "per-item"), "— / 50.0", CAPTIONS["per-item"]),
        (("--judgment", "per-statement"), "— / 33.3", CAPTIONS["per-statement"]),  # 1 of 3 statements
        (("--judgment", "ck12-release"), "— / 100.0", CAPTIONS["ck12-release"]),  # 2 of the 2 it counts
    ],
)
@pytest.mark.slow
def test_table1_scores_judgment_as_asked_and_its_caption_says_so(
    run: Path, tmp_path: Path, flags: tuple[str, ...], cell: str, caption: str
) -> None:
    report = _report(run, tmp_path / "report", *flags)
    assert _judgment_cell(report) == cell
    table_md = (report / "tables" / "ck12_table1_type_by_mode.md").read_text(encoding="utf-8")
    assert caption in table_md and caption in (report / "tables.md").read_text(encoding="utf-8")
    page = (report / "index.html").read_text(encoding="utf-8")
    assert caption in page
    assert [c for c in CAPTIONS.values() if c in table_md + page] == [caption]
    assert _table1(report)["asked / in bank"]["replayed · science"] == "2 / 2"


def test_the_python_api_takes_the_judgment_scoring(run: Path, tmp_path: Path) -> None:
    import k12eval

    report = k12eval.report(run, tmp_path / "api", judgment="ck12-release", plots=False)
    assert _judgment_cell(report.out) == "— / 100.0"


def test_an_unknown_judgment_scoring_is_one_line(run: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(tmp_path / "r"), "--judgment", "per-blank"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: --judgment 'per-blank': choose one of per-item, per-statement, ck12-release"


def test_a_run_json_naming_an_unknown_rule_is_one_line_in_the_api_and_the_cli(run: Path, tmp_path: Path) -> None:
    # Before: the writer, the tables and run's summary each had their own check with their own words; the rule
    # read from run.json or from a frame's column is checked by runners.counting.judgment_rule alone. The line
    # names the run.json read (before: "run.json's protocol.judgment_rule", which of the report's runs unsaid).
    import shutil

    import pandas as pd

    from kg.errors import InputError
    from reports.tables import frame_rule

    good = shutil.copytree(run, tmp_path / "good")
    header = json.loads((run / "run.json").read_text(encoding="utf-8"))
    header["protocol"]["judgment_rule"] = "per-blank"
    (run / "run.json").write_text(json.dumps(header, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(app, ["report", str(good), str(run), "-o", str(tmp_path / "r")])
    rules = "choose one of per-item, per-statement, ck12-release"
    expected = f"{run / 'run.json'}: protocol.judgment_rule 'per-blank': {rules}"
    assert result.exit_code == 2 and result.output.strip() == f"error: {expected}"
    # run's summary reads the rule through the same check (runners.counting.header_judgment_rule): it had its own
    # copy, worded differently, beside it; resuming the run folder now stops on the same line
    answers = run.parent / "answers.jsonl"
    args = ["run", str(run.parent / "bank"), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(run)]
    resumed = CliRunner().invoke(app, args)
    assert resumed.exit_code == 2 and resumed.output.strip().splitlines()[-1] == f"error: {expected}"
    with pytest.raises(InputError, match=r"^judgment_rule 'per-blank': choose one of per-item, per-statement"):
        frame_rule(pd.DataFrame({"judgment_rule": ["per-blank"]}))
    with pytest.raises(InputError, match=r"^judgment 'per-blank': choose one of per-item"):
        frame_rule(pd.DataFrame({"judgment_rule": ["per-item"]}), "per-blank")  # type: ignore[arg-type]


def _nodes_root(report: Path) -> dict[str, str]:
    with (report / "nodes.csv").open(encoding="utf-8-sig") as handle:
        rows = [r for r in csv.DictReader(handle) if r["slice"] == "all" and r["node"] == "all"]
    (row,) = rows
    return row


@pytest.mark.parametrize(
    ("flags", "n", "correct", "level1"),
    [
        ((), "3", "1", "33.3"),  # per statement: 1 of 3 statements
        (("--judgment", "per-item"), "2", "1", "50.0"),  # per item: 1 of 2 questions
        (("--judgment", "ck12-release"), "2", "2", "100.0"),  # the release: 2 of the 2 statements it counts
    ],
)
@pytest.mark.slow
def test_the_judgment_rule_reaches_overall_nodes_and_table3(
    run: Path, tmp_path: Path, flags: tuple[str, ...], n: str, correct: str, level1: str
) -> None:
    report = _report(run, tmp_path / "report", *flags)
    root = _nodes_root(report)
    assert (root["n"], root["correct"]) == (n, correct)
    assert _table1(report)["overall"]["replayed · science"] == level1
    with (report / "tables" / "ck12_table3_level1.csv").open(encoding="utf-8-sig") as handle:
        (table3,) = list(csv.DictReader(handle))
    assert (table3["level1"], table3["run"], table3["run · asked / in bank"]) == ("力学", level1, "2 / 2")
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    assert summary["judgment"] == (flags[1] if flags else "per-statement")
    (entry,) = summary["runs"]
    assert (entry["asked"], entry["in_bank"], entry["n"], entry["correct"]) == (2, 2, int(n), int(correct))


def test_the_rules_side_by_side_with_counts_and_intervals(run: Path, tmp_path: Path) -> None:
    with (_report(run, tmp_path / "report") / "tables" / "ck12_judgment_rules.csv").open(encoding="utf-8-sig") as f:
        (row,) = list(csv.DictReader(f))
    assert (row["per-statement n"], row["per-item n"], row["ck12-release n"]) == ("1 / 3", "1 / 2", "2 / 2")
    assert row["per-item"] == "50.0 (9.5–90.5)"  # Wilson 1/2
    assert row["ck12-release"] == "100.0 (34.2–100.0)"  # Wilson 2/2


def test_run_prints_the_accuracy_report_prints(run: Path, tmp_path: Path) -> None:
    """The same run: run's summary and report's overall agree, judgment under the protocol's rule (#31 item 3)."""
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["judgment_rule"] == "per-statement"
    assert (summary["all"]["units"], summary["all"]["units_right"]) == (3, 1)
    assert float(_nodes_root(_report(run, tmp_path / "report"))["acc_micro"]) == pytest.approx(
        summary["all"]["accuracy"]
    )


def test_the_run_records_its_judgment_rule_and_a_caption_names_no_paper_it_cannot_quote(run: Path) -> None:
    header = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert header["protocol"]["name"] == "ck12" and header["protocol"]["judgment_rule"] == "per-statement"
    from reports.tables import type_by_mode_caption

    assert "the CK12 paper)" not in type_by_mode_caption("per-item")
    assert "released scorer" in type_by_mode_caption("ck12-release")
    assert "released scorer" not in type_by_mode_caption("per-statement")


def test_a_limited_run_and_its_report_say_how_many_were_asked_of_the_bank(tmp_path: Path) -> None:
    """--limit 1 of a bank of 2: accuracy over the one asked; both say 1 asked of 2 in the bank (#31 item 3)."""
    bank = write_bank(tmp_path / "bank", QUESTIONS)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"question_id": q, "output": t}) + "\n" for q, t in OUTPUTS.items()), "utf-8")
    out = tmp_path / "run"
    args = ["run", str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(out), "--limit", "1"]
    printed = CliRunner().invoke(app, args)
    assert printed.exit_code == 0, printed.output
    assert "asked of 1 selected (2 in the run's bank)" in " ".join(printed.output.split())
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["questions"], summary["in_bank"], summary["all"]["scored"]) == (1, 2, 1)
    report = json.loads((_report(out, tmp_path / "report") / "summary.json").read_text(encoding="utf-8"))
    (entry,) = report["runs"]
    assert (entry["asked"], entry["in_bank"]) == (1, 2)
    assert entry["acc_micro"] == pytest.approx(summary["all"]["accuracy"])
