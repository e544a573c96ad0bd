"""`k12eval report` over runs that used to crash it: all right, all wrong, malformed LaTeX in names (#14)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from k12eval.report import write_report
from k12eval.report.plots import Labeller
from tests._runs import Answer, question, write_bank, write_run

BAD_NAMES = ["$\\frac{$", "$x^$", "$\\frac{", "$$}{$$", "$x^2$ 的图像"]
"""Knowledge-point names matplotlib's mathtext cannot parse, and one it can."""


def _extreme_bank(tmp_path: Path) -> tuple[Path, Path]:
    """A bank whose science side is answered 10/10 and arts side 0/7, under names with broken LaTeX."""
    questions = [question(f"m{i}", "数学", "函数", BAD_NAMES[i % len(BAD_NAMES)]) for i in range(10)]
    questions += [question(f"c{i}", "语文", "阅读", f"$古诗{i % 2}") for i in range(7)]
    bank = write_bank(tmp_path / "bank", questions)
    answers = {q.id: Answer(q.subject == "数学", extracted=None if q.subject == "数学" else ["B"]) for q in questions}
    run = write_run(tmp_path / "run", {q.id: q for q in questions}, answers, bank=bank)
    return bank, run


def test_report_draws_groups_at_100_and_0_percent_and_broken_latex_names(tmp_path: Path) -> None:
    _, run = _extreme_bank(tmp_path)
    result = write_report([run], tmp_path / "out")
    for plot in ("heatmap", "groups", "weakest", "unparsed"):
        assert (tmp_path / "out" / "plots" / f"{plot}.png").read_bytes()[:4] == b"\x89PNG"
    nodes = pd.read_csv(tmp_path / "out" / "nodes.csv")
    groups = nodes[(nodes["slice"] == "group") & (nodes["node"] == "all")].set_index("slice_value")
    assert groups.loc["science", "acc_micro_hi"] == 1.0 and groups.loc["arts", "acc_micro_lo"] == 0.0
    assert result.summary["runs"][0]["n"] == 17


def test_plot_labels_show_well_formed_latex_as_text() -> None:
    label = Labeller(has_cjk=True)
    assert label("$x^2$ 的图像") == "x² 的图像"
    assert label("$$\\frac{1}{2}$$") == "1/2"
    assert label("二次函数") == "二次函数"


def test_a_run_answered_all_right_goes_through_the_command(tmp_path: Path) -> None:
    sizes = [1, 7, 10, 13, 25]  # sizes whose Wilson bounds rounding used to push past the point
    questions = [question(f"q{n}-{i}", "物理", "力学", f"点{n}") for n in sizes for i in range(n)]
    questions += [question(f"w{i}", "历史", "古代", "秦朝") for i in range(9)]
    bank = write_bank(tmp_path / "bank", questions)
    answers = {q.id: Answer(True) for q in questions}
    run = write_run(tmp_path / "run", {q.id: q for q in questions}, answers, bank=bank)
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert f"run: {len(questions)} scored, accuracy 100.0%" in result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["runs"][0]["acc_micro_hi"] == 1.0


@pytest.mark.parametrize("name", BAD_NAMES)
def test_plots_survive_each_broken_name(tmp_path: Path, name: str) -> None:
    questions = [question(f"q{i}", "数学", "函数", name) for i in range(3)]
    bank = write_bank(tmp_path / "bank", questions)
    run = write_run(tmp_path / "run", {q.id: q for q in questions}, {"q0": Answer(True), "q1": Answer(True)}, bank=bank)
    write_report([run], tmp_path / "out")
    assert (tmp_path / "out" / "plots" / "weakest.png").stat().st_size > 1000


FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1"]


def test_csv_cells_are_not_formulas_and_numbers_stay_numbers(tmp_path: Path) -> None:
    questions = [question(f"q{i}", "数学", "函数", name) for i, name in enumerate(FORMULAS)]
    questions.append(question("neg", "数学", "-3.5", "-3.5"))  # a number-like name is a number, not a formula
    bank = write_bank(tmp_path / "bank", questions)
    answers = {q.id: Answer(True) for q in questions}
    run = write_run(tmp_path / "run", {q.id: q for q in questions}, answers, bank=bank, model="=1+1")
    write_report([run], tmp_path / "out", plots=False)
    csvs = [tmp_path / "out" / "nodes.csv", tmp_path / "out" / "questions.csv"]
    csvs += sorted((tmp_path / "out" / "tables").glob("*.csv"))
    for path in csvs:
        for cell in _cells(path):
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), (path.name, cell)
            assert not cell.startswith("-") or float(cell) < 0, (path.name, cell)
    nodes = pd.read_csv(tmp_path / "out" / "nodes.csv", keep_default_na=False)
    assert set(nodes["model"]) == {"'=1+1"}
    assert {f"'{n}" for n in FORMULAS} <= set(nodes["name"]) and "-3.5" in set(nodes["name"])
    assert nodes["acc_micro"].dtype == float  # number columns are written as numbers
    questions_csv = pd.read_csv(tmp_path / "out" / "questions.csv", keep_default_na=False)
    assert "'-2+3" in set(questions_csv["level2"])
    raw = pd.read_parquet(tmp_path / "out" / "nodes.parquet")  # parquet is data, not a spreadsheet: raw text
    assert set(raw["model"]) == {"=1+1"}


def _cells(path: Path) -> list[str]:
    import csv

    with path.open(encoding="utf-8", newline="") as handle:
        return [cell for row in csv.reader(handle) for cell in row]
