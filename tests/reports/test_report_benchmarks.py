"""Benchmark figures where users read results (#31 item 7): CircularEval beside the plain accuracy, and
GAOKAO-Bench's scoring rate by both graders, in the report's tables and on its page, the same numbers as the
run's summary.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from k12eval import api
from reports import write_report
from tests._browser import UI_WAIT_S, chromium
from tests.kg.test_importers_gaokao import release
from tests.reports.test_report import page_data
from tests.runners.backends.test_replay_gaokao import MODEL, results_folder
from tests.runners.test_circular import _bank, _knows
from tests.scripted import ScriptedBackend


def circular_runs(tmp_path: Path) -> list[Path]:
    """Two circular runs of four questions: one that knows every answer, one stopped after 14 of 16 rotations."""
    bank = _bank(tmp_path)
    whole, part = tmp_path / "circular-all", tmp_path / "circular-part"
    api.run(bank, "knows", whole, backend=ScriptedBackend(_knows), variant="circular")  # type: ignore[arg-type]
    api.run(bank, "always-a", part, backend=ScriptedBackend("A"), variant="circular", limit=14)
    return [whole, part]


def gaokao_run(tmp_path: Path) -> Path:
    data = release(tmp_path / "gaokao")
    out = tmp_path / "gaokao-run"
    api.run(data, MODEL, out, backend="replay", backend_options={"path": str(results_folder(tmp_path, data))})
    return out


def test_circular_accuracy_stands_beside_plain_with_counts_intervals_and_incomplete_questions(tmp_path: Path) -> None:
    runs = circular_runs(tmp_path)
    write_report(runs, tmp_path / "report", plots=False)
    table = pd.read_csv(tmp_path / "report" / "tables" / "circular.csv", dtype=str).set_index("run")
    knows, always_a = table.loc["knows · zero-shot · circular"], table.loc["always-a · zero-shot · circular"]
    assert (knows["questions"], knows["incomplete"]) == ("4", "0")
    assert knows["perf_circular"] == "4/4 = 100.0 (51.0-100.0)" and knows["acc_origin"].startswith("4/4 = 100.0")
    # "A" always: right in the original order of question 0 only, in no question's every rotation; the fourth
    # question has two of its rotations asked: left out, and said so
    assert (always_a["questions"], always_a["incomplete"]) == ("3", "1")
    assert always_a["perf_circular"].startswith("0/3 = 0.0 (") and always_a["acc_origin"].startswith("1/3 = 33.3 (")
    assert always_a["acc_circular"].startswith("3/12 = 25.0 (")
    summary = json.loads((runs[1] / "summary.json").read_text("utf-8"))["circular"]
    assert (summary["circular"]["correct"], summary["origin"]["correct"], summary["incomplete"]) == (0, 1, 1)
    markdown = (tmp_path / "report" / "tables" / "circular.md").read_text("utf-8")
    assert "1 question(s) not yet asked in every rotation are left out (incomplete)" in markdown


def test_the_gaokao_scoring_rate_table_is_the_summarys_figure_by_each_grader(tmp_path: Path) -> None:
    run = gaokao_run(tmp_path)
    write_report([run], tmp_path / "report", plots=False)
    table = pd.read_csv(tmp_path / "report" / "tables" / "gaokao_scoring_rate.csv", dtype=str).set_index("grader")
    graders = json.loads((run / "summary.json").read_text("utf-8"))["gaokao"]["graders"]
    for grader in ("gaokao-release", "k12eval"):
        overall = graders[grader]["overall"]
        shown = f"{100 * overall['rate']:.1f} ({overall['earned']:g}/{overall['possible']:g})"
        assert table.loc[grader, "Overall"] == shown
    assert (
        table.loc["gaokao-release", "Overall"] == "64.9 (24/37)" and table.loc["k12eval", "Overall"] == "78.4 (29/37)"
    )
    assert list(table.columns) == ["run", "records asked", "Overall", "Chinese", "Eng.", "Sci. Math", "Phys."]
    detail = pd.read_csv(tmp_path / "report" / "tables" / "gaokao_scores.csv", dtype=str)
    physics = detail[(detail["grader"] == "gaokao-release") & (detail["group"] == "2010-2022_Physics_MCQs")].iloc[0]
    assert (physics["points"], physics["questions right"]) == ("3/6", "0/1")
    caption = (tmp_path / "report" / "tables" / "gaokao_scoring_rate.md").read_text("utf-8")
    assert "Grader gaokao-release: the release's extraction" in caption


@pytest.mark.browser
@pytest.mark.slow
def test_the_page_shows_both_tables_in_both_languages(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    runs = [*circular_runs(tmp_path), gaokao_run(tmp_path)]
    out = tmp_path / "report"
    write_report(runs, out, plots=False)
    tables = {t["id"]: t for t in page_data((out / "index.html").read_text("utf-8"))["tables"]}
    assert tables["circular"]["titles"]["zh"][3].startswith("循环评测正确率")
    driver = chromium(tmp_path / "profile", tmp_path / "downloads")
    try:
        driver.get((out / "index.html").resolve().as_uri() + "#tables")

        def card(d: Any, name: str) -> Any:
            found = d.find_elements(By.ID, f"table-{name}")
            return found[0] if found else None

        circular = WebDriverWait(driver, UI_WAIT_S).until(lambda d: card(d, "circular"))
        assert "4/4 = 100.0 (51.0-100.0)" in circular.text and "perf_circular" in circular.text
        gaokao = card(driver, "gaokao_scoring_rate")
        assert "64.9 (24/37)" in gaokao.text and "gaokao-release" in gaokao.text
        # the GAOKAO run's card heads with its points, the paper's unit, and counts records as records
        driver.get((out / "index.html").resolve().as_uri() + "#overview")
        cards = WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.find_elements(By.CLASS_NAME, "runcard"))
        shown = next(c.text for c in cards if "24/37" in c.text)
        assert shown.split("\n")[1] == "64.9%" and "29/37" in shown and "6 / 6" in shown
        body = driver.find_element(By.TAG_NAME, "body").text
        assert "按记录计数" in body or "count records here" in body  # beside the heat map's record accuracies
        # the heat map's cells say what they count: a GAOKAO run's records, the others' questions (it read 题 for both)
        counts = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "td.cell .n") if e.text]
        assert any(c.endswith("条记录") for c in counts) and any(c.endswith(" 题") for c in counts), counts
    finally:
        driver.quit()


def test_a_gaokao_report_heads_with_the_papers_points_and_names_records_as_records(tmp_path: Path) -> None:
    """The report's printed line, summary.json and tables name the release's records as records and head with the
    paper's unit, points; the record accuracy stays, called so."""
    from typer.testing import CliRunner

    from k12eval.cli import app

    run = gaokao_run(tmp_path)
    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["report", str(run), "-o", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())
    assert "gaokao-run: GAOKAO-Bench scoring rate 24/37 points = 64.9%" in printed
    assert "6 record(s) (11 question(s)) scored, accuracy by record" in printed
    assert "6 of 6 records asked" in printed and "questions asked" not in printed
    entry = json.loads((out / "summary.json").read_text("utf-8"))["runs"][0]
    assert entry["unit"] == "records"
    headline = entry["gaokao"]["gaokao-release"]
    assert (headline["earned"], headline["possible"], headline["questions"]) == (24, 37, 11)
    tables = (out / "tables.md").read_text("utf-8")
    assert tables.index("GAOKAO-Bench") < tables.index("CK12 Table 1")  # the paper's figure first
    table1 = (out / "tables" / "ck12_table1_type_by_mode.md").read_text("utf-8")
    assert "GAOKAO-Bench runs (gaokao-run) count records here" in table1
    rate = (out / "tables" / "gaokao_scoring_rate.md").read_text("utf-8")
    assert "| records asked |" in rate and "Only records asked count" in rate
    page = page_data((out / "index.html").read_text("utf-8"))
    card = page["runs"][0]
    assert card["unit"] == "records" and card["gaokao"]["gaokao-release"]["earned"] == 24
