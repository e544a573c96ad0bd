"""A Xiezhi question labelled in two 门类 counts in each, in every count by subject or knowledge point.

Xiezhi's released scorer (``Knowledge_Evaluator/conclude.py``) appends a question's rank to every label it
carries, so its per-discipline figures count ``["数学", "理学", "工学"]`` under 理学 and under 工学 (5 of the 500
questions of the shared Chinese specialty sample are labelled so). The graph placed such a question under one
门类: ``kg stats``, ``kg show``, nodes.csv, the page and summary.json counted it there only, while the report's
per-discipline table counted it under both: one 门类, two different numbers in one report. A count of the whole
bank counts it once.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from tests._runs import write_answers
from tests.xiezhi_tree import TREE_CHN, record


def _bank(root: Path) -> Path:
    """Three 理学 questions, two 工学 ones and one labelled in both (数学, 理学, 工学), with the taxonomy beside."""
    rows = [record("理学", n) for n in range(3)] + [record("工学", n) for n in range(3, 5)]
    rows.append(record("理学", 5, labels=["数学", "理学", "工学"]))
    (root / "discipline_taxonomy").mkdir(parents=True)
    tree = json.dumps(TREE_CHN, ensure_ascii=False)
    (root / "discipline_taxonomy" / "subjects_tree_chn.json").write_text(tree, encoding="utf-8")
    bank = root / "xiezhi_spec_chn.jsonl"
    bank.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return bank


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_question_in_two_categories_counts_in_each_everywhere(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "bank")
    stats = json.loads(_invoke("kg", "stats", str(bank), "--json"))
    # Before: 理学 4, 工学 2 (the sixth question under 理学 only).
    assert (stats["questions"], stats["by_subject"]) == (6, {"理学": 4, "工学": 3})
    assert stats["placed_twice"] == 1
    shown = _invoke("kg", "show", str(bank), "--depth", "0")
    assert "工学  (3)  subject:工学" in shown and "理学  (4)  subject:理学" in shown

    ids = [f"xiezhi/xiezhi_spec_chn/{n}" for n in range(1, 7)]
    answers = write_answers(tmp_path / "answers.jsonl", ids, "答案是 B")  # every answer the 2nd option: right
    run = tmp_path / "run"
    _invoke("run", str(bank), "-b", "replay", "-m", str(answers), "--variant", "original", "-o", str(run))
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["all"]["n"] == 6
    assert {s: g["n"] for s, g in summary["by_subject"].items()} == {"理学": 4, "工学": 3}

    _invoke("report", str(run), "-o", str(tmp_path / "report"), "--no-plots")
    with (tmp_path / "report" / "nodes.csv").open(encoding="utf-8-sig") as handle:
        nodes = [r for r in csv.DictReader(handle) if r["slice"] == "all"]
    subjects = {r["name"]: (r["records"], r["in_bank"], r["questions"]) for r in nodes if r["kind"] == "subject"}
    assert subjects == {"理学": ("4", "4", "4"), "工学": ("3", "3", "3")}
    (root,) = [r for r in nodes if r["kind"] == "all"]
    assert (root["records"], root["n"], root["questions"]) == ("6", "6", "6")  # the whole run counts it once
    with (tmp_path / "report" / "tables" / "xiezhi_disciplines.csv").open(encoding="utf-8-sig") as handle:
        table = {r["discipline"]: r["n"] for r in csv.DictReader(handle)}
    assert (table["理学"], table["工学"]) == ("4", "3")  # the per-discipline table says the same


@pytest.mark.browser
@pytest.mark.slow
def test_the_page_counts_it_in_each_category_and_once_in_all(tmp_path: Path) -> None:
    # Before: the page's whole-run row gathered its subjects' questions and counted the question twice (题数 7).
    from selenium.webdriver.common.by import By

    from tests._browser import chromium
    from tests.reports.test_report_agrees_browser import _go

    bank = _bank(tmp_path / "bank")
    answers = write_answers(tmp_path / "answers.jsonl", [f"xiezhi/xiezhi_spec_chn/{n}" for n in range(1, 7)], "B")
    run = tmp_path / "run"
    _invoke("run", str(bank), "-b", "replay", "-m", str(answers), "--variant", "original", "-o", str(run))
    _invoke("report", str(run), "-o", str(tmp_path / "report"), "--no-plots")
    driver = chromium(tmp_path / "profile", tmp_path / "downloads")
    try:
        driver.get((tmp_path / "report" / "index.html").resolve().as_uri())
        shown = {}
        for node in ("all", "subject:理学", "subject:工学"):
            _go(driver, f"node/{node}")
            row = driver.find_elements(By.CSS_SELECTOR, ".card table.data tbody tr")[0]
            shown[node] = [td.text for td in row.find_elements(By.TAG_NAME, "td")][1]
    finally:
        driver.quit()
    assert shown == {"all": "6", "subject:理学": "4", "subject:工学": "3"}  # 题数, as nodes.csv


def test_a_frames_further_places_are_the_graphs_and_kept_by_that_frame_alone(tmp_path: Path) -> None:
    """A question frame's further places are the graph's ids beside their names (kg.graph.placements); the rows of one
    frame share one tuple per set of places, and the sets go with the frame (they sat in a module-level dict that a
    long-lived process, a notebook or the tests, grew forever)."""
    from k12eval.api import load_runs, question_table
    from kg.graph import placements
    from reports.aggregate import FURTHER

    bank = _bank(tmp_path / "bank")
    rows = [json.loads(line) for line in bank.read_text(encoding="utf-8").splitlines()]
    rows.append(record("工学", 6, labels=["数学", "理学", "工学"]))  # a second question in both
    bank.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    ids = [f"xiezhi/xiezhi_spec_chn/{n}" for n in range(1, 8)]
    run = tmp_path / "run"
    answers = write_answers(tmp_path / "answers.jsonl", ids, "B")
    _invoke("run", str(bank), "-b", "replay", "-m", str(answers), "--variant", "original", "-o", str(run))
    runs = load_runs(run)
    first, second = question_table(runs), question_table(runs)
    moved = first[first[FURTHER].notna()]
    assert len(moved) == 2 and moved[FURTHER].iloc[0] is moved[FURTHER].iloc[1]
    # written out, not rebuilt by the functions under test: 工学's ids as the graph names its nodes, then its names
    assert moved[FURTHER].iloc[0] == (("subject:工学", "l1:工学/工学", "l2:工学/工学/工学", "工学", "工学", "工学"),)
    question = runs[0].questions[moved["question_id"].iloc[0]]
    assert [p["subject"] for p in placements(question)] == ["subject:理学", "subject:工学"]
    again = second[second[FURTHER].notna()][FURTHER].iloc[0]
    assert again == moved[FURTHER].iloc[0] and again is not moved[FURTHER].iloc[0]
