"""A report's memory grows with what it shows (#32 item 5): the page carries every question's coordinates and
results, and the texts and answers of at most K12EVAL_PAGE_QUESTIONS of them, spread over the knowledge points."""

from __future__ import annotations

import gc
import json
import re
import shutil
import weakref
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from reports import write_report
from reports.payload import detail_ids
from reports.runs import Answered, load_runs
from tests._runs import SMALL_ANSWERS, small_bank, write_bank, write_run


def test_detail_goes_round_the_points_before_a_second_question() -> None:
    points = [["a1", "a2", "a3"], ["b1"], ["c1", "c2"]]
    assert detail_ids(points, 4) == ["a1", "b1", "c1", "a2"]
    assert detail_ids(points, 1) == ["a1"]
    assert detail_ids(points, 6) == detail_ids(points, 100) == ["a1", "a2", "a3", "b1", "c1", "c2"]


def _page(out: Path) -> dict:
    html = (out / "index.html").read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert match
    return json.loads(match.group(1))


def test_a_capped_page_counts_every_question_and_shows_the_texts_of_a_few(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)
    monkeypatch.setenv("K12EVAL_PAGE_QUESTIONS", "3")
    result = write_report([run], tmp_path / "report", plots=False)
    data = _page(tmp_path / "report")
    coded = data["questions"]
    assert sorted(coded["id"]) == sorted(bank)  # every question is on the page, by id and point
    # the texts of 3: the first question of each of the first three level-2 points, in tree order
    points = [coded["points"][n] for n in coded["node"]]
    firsts = [i for i, point in enumerate(points) if i == points.index(point)][:3]
    assert sorted(int(i) for i in data["detail"]) == firsts
    assert all(data["detail"][str(i)]["stem"]["t"] == f"题目 {coded['id'][i]}" for i in firsts)
    answers = data["answers"]["run"]
    assert set(answers) <= {str(i) for i in firsts} and answers  # answers only where the texts are
    assert all(answers[k]["output"] is not None for k in answers)  # read back whole from records.jsonl
    # results still cover every answered question, as nodes.csv counts them
    nodes = pd.read_csv(tmp_path / "report" / "nodes.csv")
    root_row = nodes[(nodes["slice"] == "all") & (nodes["node"] == "all")].iloc[0]
    asked = sum(c is not None for c in data["results"]["run"]["c"])
    assert asked == root_row["asked"]
    assert data["meta"]["questions"] == {"shown": 3, "of": 8, "cap": 3}
    summary = json.loads((tmp_path / "report" / "summary.json").read_text(encoding="utf-8"))
    assert any("3 of the 8 questions" in w for w in summary["warnings"]) and result.warnings


def test_runs_keep_records_without_their_texts(tmp_path: Path) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)
    (loaded,), _ = load_runs([run])
    assert all(isinstance(r, Answered) for r in loaded.records)
    assert {r.question_id: r.line for r in loaded.records} == {qid: n for n, qid in enumerate(SMALL_ANSWERS, 1)}
    assert all(q.stem == "" and q.options == [] for q in loaded.questions.values())  # texts left in the bank
    by_id = {r.question_id: r for r in loaded.records}
    assert by_id["q5"].parse_status == "unparsed" and by_id["q5"].output is None  # not a judgment: text not kept
    assert by_id["q3"].type == "judgment" and by_id["q3"].output is not None  # the released scorer reads it


@pytest.mark.browser
@pytest.mark.slow
def test_the_page_rebuilds_every_question_and_says_which_texts_it_left_out(
    driver: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    from tests._browser import UI_WAIT_S, console_errors

    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)
    monkeypatch.setenv("K12EVAL_PAGE_QUESTIONS", "3")
    write_report([run], tmp_path / "report", plots=False)
    data = _page(tmp_path / "report")
    shown = {int(i) for i in data["detail"]}
    left = next(
        i for i in range(len(data["questions"]["id"])) if i not in shown and data["results"]["run"]["st"][i] == 0
    )
    url = (tmp_path / "report" / "index.html").resolve().as_uri()
    driver.get(url)
    driver.execute_script("localStorage.setItem('k12eval.lang', 'en')")
    driver.get(url + f"#q/{left}")
    driver.refresh()
    WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.execute_script("return !!document.querySelector('.answer')"))
    text = driver.execute_script("return document.getElementById('view').textContent")
    assert data["questions"]["id"][left] in text and "texts and answers of part of the questions" in text
    driver.get(url + f"#q/{min(shown)}")
    WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.execute_script("return !!document.querySelector('.stem')"))
    stem = driver.execute_script("return document.querySelector('.stem').textContent")
    assert stem == f"题目 {data['questions']['id'][min(shown)]}"
    driver.get(url + "#node/all")
    WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.execute_script("return !!document.querySelector('table')"))
    assert console_errors(driver) == []


def test_questions_csv_written_in_parts_is_the_csv_written_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)
    write_report([run], tmp_path / "whole", plots=False)
    monkeypatch.setattr("reports.writer.CSV_ROWS", 3)  # 8 rows in parts of 3, 3 and 2
    write_report([run], tmp_path / "parts", plots=False)
    whole = (tmp_path / "whole" / "questions.csv").read_bytes()
    assert (tmp_path / "parts" / "questions.csv").read_bytes() == whole and whole.count(b"\r\n") == 9
    assert not list((tmp_path / "parts").glob("*.part"))


def test_slim_questions_hold_no_dict_and_one_knowledge_point_object_a_point(tmp_path: Path) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)
    (loaded,), _ = load_runs([run])
    questions = list(loaded.questions.values())
    assert len(questions) == 8 and not any(hasattr(q, "__dict__") for q in questions)  # slots, no dict each
    points = {(q.subject, q.knowledge.level1, q.knowledge.level2) for q in questions}
    assert len({id(q.knowledge) for q in questions}) == len(points) == 5  # q1-q3 share 一次函数's, q6 q7 古诗's
    for q in questions:  # read as the question it stands for
        full = bank[q.id]
        assert (q.type, q.stage, q.split, q.is_choice, q.answer) == (
            full.type,
            full.stage,
            None,
            full.is_choice,
            full.answer,
        )
        assert (q.knowledge.level1, q.knowledge.level2) == (full.knowledge.level1, full.knowledge.level2)
    # one id string for a record, its question and the key: and no node ids kept once the question is found
    assert all(r.question_id is loaded.questions[r.question_id].id for r in loaded.records)
    assert all(key is q.id for key, q in loaded.questions.items())
    assert all(r.nodes == () for r in loaded.records)


def test_records_without_their_bank_keep_what_their_stand_ins_are_made_of(tmp_path: Path) -> None:
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    run = write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)
    shutil.rmtree(root)
    (loaded,), warnings = load_runs([run])
    assert any("not found" in w for w in warnings)
    assert all(dict(r.nodes).keys() == {"subject", "level1", "level2"} for r in loaded.records)
    assert {q.id: q.knowledge.level2 for q in loaded.questions.values()} == {
        qid: q.knowledge.level2 for qid, q in bank.items()
    }


def test_each_big_table_is_freed_before_the_next_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report's peak memory is the runs plus one big table at a time (#32 item 5): the per-unit rows are gone
    before the node table's files are written, the node table's other slices before questions.csv, and the question
    frame before the page. Checked by weak references to each, not by timing or RSS."""
    from reports import aggregate, payload, writer

    made: dict[str, weakref.ref[pd.DataFrame]] = {}
    freed: list[tuple[str, set[str]]] = []

    def keeping(name: str, build: Any) -> Any:
        def built(*args: Any, **kwargs: Any) -> Any:
            table = build(*args, **kwargs)
            made[name] = weakref.ref(table)
            return table

        return built

    def noting(step: str, function: Any, *, named: bool = False) -> Any:
        def called(*args: Any, **kwargs: Any) -> Any:
            gc.collect()  # what is unreachable is freed: a table still alive is held
            freed.append((f"{step} {args[1]}" if named else step, {n for n, ref in made.items() if ref() is None}))
            return function(*args, **kwargs)

        return called

    for name in ("question_frame", "counted_rows", "node_table"):
        monkeypatch.setattr(aggregate, name, keeping(name, getattr(aggregate, name)))
    monkeypatch.setattr(writer, "_write_table", noting("write", writer._write_table, named=True))
    monkeypatch.setattr(payload, "build_payload", noting("page", payload.build_payload))
    bank = small_bank()
    root = write_bank(tmp_path / "bank", list(bank.values()))
    write_report([write_run(tmp_path / "run", bank, SMALL_ANSWERS, bank=root)], tmp_path / "report", plots=False)
    assert freed == [
        ("write nodes", {"counted_rows"}),
        ("write questions", {"counted_rows", "node_table"}),
        ("page", {"counted_rows", "node_table", "question_frame"}),
    ]
