"""`k12eval report` over runs that used to crash it: all right, all wrong, malformed LaTeX in names (#14)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from reports import write_report
from reports.plots import Labeller
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
    # no judgment question was asked, so no judgment rule is named as the one that counted
    assert f"run: {len(questions)} scored, accuracy 100.0%" in result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert summary["runs"][0]["acc_micro_hi"] == 1.0


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.slow
def test_plots_survive_each_broken_name(tmp_path: Path, name: str) -> None:
    questions = [question(f"q{i}", "数学", "函数", name) for i in range(3)]
    bank = write_bank(tmp_path / "bank", questions)
    run = write_run(tmp_path / "run", {q.id: q for q in questions}, {"q0": Answer(True), "q1": Answer(True)}, bank=bank)
    write_report([run], tmp_path / "out")
    assert (tmp_path / "out" / "plots" / "weakest.png").stat().st_size > 1000


FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1"]


@pytest.mark.slow
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


POISON = {
    "p1": "\ufffd\ufffd 答案是 A",  # a lone surrogate, as the run records it (replaced by U+FFFD)
    "p2": "1" + "0" * 5000 + " 所以答案是 B",  # 10^5000 as text
    "p3": "</script><script>window.__pwned=1</script><!-- 答案是 A",
    "p4": "$\\frac{ 而且 $x^$ 答案是 C",
    "p5": "前\x00后 答案是 A",
    "p6": "很长" * 50_000 + "\n答案是 A",  # one 100,000-character line
}


@pytest.mark.slow
def test_poisoned_replay_outputs_go_through_run_and_report(tmp_path: Path) -> None:
    good = [question(f"g{i}", "数学", "函数", "一次函数", stem=f"第 {i} 题") for i in range(4)]
    bad = [question(qid, "物理", "力学", "$\\frac{", stem=f"毒 {qid}") for qid in POISON]
    bank = write_bank(tmp_path / "bank", good + bad)
    replies = [{"question_id": q.id, "output": "正确答案是：A"} for q in good]
    replies += [{"question_id": qid, "output": text} for qid, text in POISON.items()]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in replies), encoding="utf-8")
    run, out = tmp_path / "run", tmp_path / "report"
    done = CliRunner().invoke(
        app, ["run", str(bank), "-m", "replayed", "-b", "replay", "-B", f"path={answers}", "-o", str(run)]
    )
    assert done.exit_code == 0, done.output
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "run: 10 scored" in result.output
    html = (out / "index.html").read_text(encoding="utf-8")
    block = html.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block and ">" not in block and "\x00" not in block  # nothing closes the data block
    assert html.count("<script") == 3 and "window.__pwned" not in html.replace(block, "")
    outputs = {a["output"] for a in json.loads(block)["answers"]["run"].values()}
    assert set(POISON.values()) <= outputs  # kept verbatim, shown as text by the page
    for plot in ("heatmap", "groups", "weakest", "unparsed"):
        assert (out / "plots" / f"{plot}.png").stat().st_size > 1000


DEEP = {
    "frac": "$" + "\\frac{" * 1500 + "$",
    "sup": "$x" + "^{" * 1500 + "$",
    "sqrt": "\\sqrt{" * 1500,
    "text": "\\text{" * 1500,
    "closed": "$" + "\\frac{1}{" * 1500 + "2" + "}" * 1500 + "$",
}
"""Groups nested 1,500 deep: before (#32, fresh round), each ended ``report`` in a ``RecursionError``."""


def test_latex_nested_deeper_than_python_recurses_goes_through_report(tmp_path: Path) -> None:
    questions = [question(name, "数学", "分数", "约分", stem=text, analysis=text) for name, text in DEEP.items()]
    answers = {q.id: Answer(True, output=f"第一步：{q.stem}\n答案是 A") for q in questions}
    run = write_run(tmp_path / "run", {q.id: q for q in questions}, answers, mode="zero-shot-cot",
                    bank=write_bank(tmp_path / "bank", questions))  # fmt: skip
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out"), "--no-plots"])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert page.count("frac{") >= 1500  # shown as written past the depth the display reads


def test_the_display_text_of_a_shallow_formula_is_unchanged() -> None:
    from reports.latex_text import simplify_latex

    assert simplify_latex("$\\frac{1}{2}+x^{2}$") == "1/2+x²"
    assert simplify_latex("$" + "\\sqrt{" * 3 + "x" + "}" * 3 + "$") == "√(√(√x))"
