"""A question's address and a teacher's marks, in a real headless chromium, with the ids real banks hold: a
Xiezhi or GAOKAO id's slashes, a teacher's own bank's '#', '%', spaces and numbers, a point named with '/'.
A link opens the question it names or none, and a mark shows on the answer it was given to, never on another
(the page keys its marks by the report's folder only, which a rebuild with another bank keeps)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reports import write_report
from tests._browser import UI_WAIT_S
from tests._runs import Answer, question, replayed_report, write_bank, write_run

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ODD_IDS = ["xiezhi/学科 测试/12", "a#b?c&d", "50%", "%E4%B8", "题/in/3", "in", "带 空格", "x" * 400]


def _wait(driver: Any, selector: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, UI_WAIT_S).until(lambda d: d.find_element(By.CSS_SELECTOR, selector))


def _open(driver: Any, url: str) -> None:
    driver.get(url)
    driver.refresh()  # a change of the address's fragment alone does not reload the page
    _wait(driver, "#view > *")


def _shown_id(driver: Any) -> str | None:
    """The id the question view names, or None when the view names no question."""
    return driver.execute_script(
        "const chip = document.querySelector('#view .card .chip.muted');"
        "return chip ? chip.textContent.replace(/^\\S+ /, '') : null"
    )


def test_every_id_a_bank_holds_opens_from_its_link(driver: Any, tmp_path: Path) -> None:
    """Each question of a point named with '/' is opened from its link in the point's list, its pager walks that
    list, and the link typed as the id reads (a '/' and all) opens it too."""
    qs = [question(qid, "数学", "比和比例", "比/例") for qid in ODD_IDS]
    bank = write_bank(tmp_path / "bank", qs)
    run = write_run(tmp_path / "run", {q.id: q for q in qs}, {q.id: Answer(True) for q in qs}, bank=bank)
    write_report([run], tmp_path / "report", plots=False)
    url = (tmp_path / "report" / "index.html").as_uri()
    _open(driver, url + "#node/" + "l2:数学/比和比例/比%252F例")
    _wait(driver, "table.data a[href^='#q/']")
    rows = driver.execute_script(
        "return [...document.querySelectorAll(\"table.data a[href^='#q/']\")].map((a) => a.getAttribute('href'))"
    )
    assert len(rows) == len(ODD_IDS)
    opened = []
    for k, href in enumerate(rows):
        _open(driver, url + href)
        opened.append(_shown_id(driver))
        pager = driver.execute_script("return document.querySelector('.pager').textContent")
        assert f"{k + 1} / {len(ODD_IDS)}" in pager, href
        assert "比/例" in driver.execute_script("return document.querySelector('.crumbs').textContent")
    assert sorted(opened) == sorted(ODD_IDS)  # type: ignore[type-var]
    _open(driver, url + "#q/xiezhi/学科 测试/12")
    assert _shown_id(driver) == "xiezhi/学科 测试/12"


def test_a_number_a_numbered_bank_lacks_opens_no_other_question(driver: Any, tmp_path: Path) -> None:
    """A teacher's bank numbers its questions 1, 2, 3; a link to question 5, left out of this build, opens
    nothing (it opened the question at place 5 + 1 of the page, another one). A bank with no number for an id
    still reads a number as a place: links of pages written before ids."""
    qs = [question(str(n), "数学", "代数", "方程") for n in range(1, 9) if n != 5]
    bank = write_bank(tmp_path / "bank", qs)
    run = write_run(tmp_path / "run", {q.id: q for q in qs}, {q.id: Answer(True) for q in qs}, bank=bank)
    write_report([run], tmp_path / "report", plots=False)
    url = (tmp_path / "report" / "index.html").as_uri()
    _open(driver, url + "#q/3")
    assert _shown_id(driver) == "3"
    _open(driver, url + "#q/5")
    assert _shown_id(driver) is None
    named = [question(f"q{n}", "数学", "代数", "方程") for n in range(3)]
    bank = write_bank(tmp_path / "named", named)
    run = write_run(tmp_path / "run2", {q.id: q for q in named}, {q.id: Answer(True) for q in named}, bank=bank)
    write_report([run], tmp_path / "report2", plots=False)
    _open(driver, (tmp_path / "report2" / "index.html").as_uri() + "#q/1")
    assert _shown_id(driver) == "q1"


def test_a_mark_never_shows_on_another_banks_answer(driver: Any, tmp_path: Path) -> None:
    """A teacher marks model m's answer to question 1 of test 甲; the report is rebuilt in its folder with test
    乙, whose question 1 m answered in the same words. 乙's answer shows no mark (it showed 甲's), and a mark given
    there keeps 甲's: rebuilt with 甲 again, 甲's mark is on the page, and both are in the download."""
    out = tmp_path / "report"
    runs = {}
    for name, stem in (("甲", "甲卷：1+1=?"), ("乙", "乙卷：2+2=?")):
        q = question("1", "数学", "代数", "方程", stem=stem)
        bank = write_bank(tmp_path / f"bank{name}", [q])
        runs[name] = write_run(tmp_path / name, {"1": q}, {"1": Answer(True, output="答案是 A")}, model="m", bank=bank)
    url = (out / "index.html").as_uri() + "#q/1"
    write_report([runs["甲"]], out, plots=False)
    _open(driver, url)
    driver.execute_script("localStorage.clear()")
    _wait(driver, ".answer [data-step='0'] [data-verdict='right']").click()
    _wait(driver, ".answer [data-step='0'] .vbtn.right.on")
    write_report([runs["乙"]], out, plots=False)
    _open(driver, url)
    assert "乙卷" in _wait(driver, ".stem").text
    assert not driver.find_elements("css selector", ".answer .vbtn.on")
    _wait(driver, ".answer [data-step='0'] [data-verdict='wrong']").click()
    _wait(driver, ".answer [data-step='0'] .vbtn.wrong.on")
    write_report([runs["甲"]], out, plots=False)
    _open(driver, url)
    assert "甲卷" in _wait(driver, ".stem").text
    assert driver.find_elements("css selector", ".answer [data-step='0'] .vbtn.right.on")
    assert not driver.find_elements("css selector", ".answer .vbtn.wrong.on")
    _open(driver, url.replace("#q/1", "#verdicts"))
    text = driver.execute_script("return document.getElementById('verdict-jsonl').value")
    assert "甲卷" in text and "乙卷" in text


def test_a_replayed_run_is_named_by_its_model_with_the_file_on_hover(driver: Any, tmp_path: Path) -> None:
    """A run replaying a k12eval run folder is named by the model that folder's run.json names, one replaying
    a plain answers file by the file's name; the path the run was given stays on hover (the page named both
    runs by the full path). Two replays of files named alike keep their paths, so they never read alike."""
    from typer.testing import CliRunner

    from k12eval.cli import app
    from tests._runs import write_answers

    qs = [question("q1", "数学", "代数", "方程")]
    bank = write_bank(tmp_path / "bank", qs)
    write_run(tmp_path / "orig", {"q1": qs[0]}, {"q1": Answer(True)}, model="Qwen2-0.5B-Instruct", bank=bank)
    files = [write_answers(tmp_path / "chatglm2_zero_shot.json", ["q1"])]
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        files.append(write_answers(tmp_path / folder / "same.jsonl", ["q1"]))
    runs = []
    for k, source in enumerate([tmp_path / "orig", *files]):
        out = tmp_path / f"replay{k}"
        result = CliRunner().invoke(app, ["run", str(bank), "-b", "replay", "-m", str(source), "-o", str(out)])
        assert result.exit_code == 0, result.output
        runs.append(out)
    write_report(runs, tmp_path / "report", plots=False)
    _open(driver, (tmp_path / "report" / "index.html").as_uri() + "#overview")
    driver.execute_script("localStorage.setItem('k12eval.lang', 'en')")
    _open(driver, (tmp_path / "report" / "index.html").as_uri() + "#overview")
    cards = driver.execute_script(
        "return [...document.querySelectorAll('.runcard .label')].map((e) => [e.textContent, e.title])"
    )
    models = [(text.split(" · ")[0], title) for text, title in cards]
    assert models == [
        ("Qwen2-0.5B-Instruct", str(tmp_path / "orig")),
        ("chatglm2_zero_shot", str(files[0])),
        (str(files[1]), ""),
        (str(files[2]), ""),
    ]


def test_the_comparisons_number_is_the_place_the_pager_counts(driver: Any, tmp_path: Path) -> None:
    """With a filter on (难 only), the comparison's '#' of a question is its place among the point's questions the
    filter keeps, as its pager counts them (it was the place among all of them: 3 beside the pager's 2 / 2)."""
    from selenium.webdriver.support.ui import Select

    qs = [question(f"p{k}", "数学", "代数", "方程", difficulty=d) for k, d in enumerate(["易", "难", "难"], 1)]
    bank = write_bank(tmp_path / "bank", qs)
    by_id = {q.id: q for q in qs}
    run_a = write_run(tmp_path / "a", by_id, {q.id: Answer(True) for q in qs}, model="甲", bank=bank)
    run_b = write_run(tmp_path / "b", by_id, {q.id: Answer(q.id != "p3") for q in qs}, model="乙", bank=bank)
    write_report([run_a, run_b], tmp_path / "report", plots=False)
    _open(driver, (tmp_path / "report" / "index.html").as_uri() + "#compare")
    Select(_wait(driver, "select[data-filter='difficulty']")).select_by_value("难")
    row = driver.execute_script(
        "const rows = [...[...document.querySelectorAll('table.data')].pop().tBodies[0].rows];"
        "return rows.map((tr) => [tr.cells[0].textContent, tr.querySelector('a').getAttribute('href')])"
    )
    assert len(row) == 1
    number, href = row[0]
    driver.execute_script("location.hash = arguments[0]", href)  # as the link does: the filter stays on
    _wait(driver, ".pager")
    assert _shown_id(driver) == "p3"
    assert f"{number} / 2" in driver.execute_script("return document.querySelector('.pager').textContent")


def test_marks_of_a_rerun_download_as_a_file_meta_eval_reads(driver: Any, tmp_path: Path) -> None:
    """A teacher marks a run's answer; the run is made again (same folder name, another answer) and the report
    rebuilt in its folder; the teacher marks the new answer. Both marks are kept, and the download holds both
    under ids that do not repeat (both read `a:q1`, and meta-eval refused the file: duplicate solution id)."""
    from reasoning_metrics.metaeval.data import load_solutions

    q = question("q1", "数学", "代数", "方程")
    bank = write_bank(tmp_path / "bank", [q])
    out = tmp_path / "report"
    url = (out / "index.html").as_uri()
    for k, output in enumerate(["第一步：1+1=3\n答案是 A", "第一步：1+1=2\n答案是 A"]):
        run = write_run(tmp_path / str(k) / "a", {"q1": q}, {"q1": Answer(True, output=output)}, model="m", bank=bank)
        write_report([run], out, plots=False)
        _open(driver, url + "#q/q1")
        if not k:
            driver.execute_script("localStorage.clear()")
        _wait(driver, ".answer [data-step='0'] [data-verdict='right']").click()
        _wait(driver, ".answer [data-step='0'] .vbtn.right.on")
    _open(driver, url + "#verdicts")
    text = driver.execute_script("return document.getElementById('verdict-jsonl').value")
    (tmp_path / "labels.jsonl").write_text(text, encoding="utf-8")
    solutions = load_solutions(tmp_path / "labels.jsonl", "chains")
    assert len(solutions) == 2 and len({s.id for s in solutions}) == 2


def test_a_chinese_column_keeps_the_papers_name_on_hover(driver: Any, tmp_path: Path) -> None:
    """CMMLU's categories head its table in Chinese on the Chinese page; each keeps on hover the name its CSV and
    the paper give (Humanities), and the English page is headed by those names."""
    import pandas as pd

    replayed_report(Path(__file__).parents[1] / "fixtures" / "cmmlu_slice", tmp_path)
    csv = list(pd.read_csv(tmp_path / "report" / "tables" / "cmmlu_categories.csv").columns)
    url = (tmp_path / "report" / "index.html").as_uri() + "#tables"
    heads = (
        "return [...document.querySelectorAll('#table-cmmlu_categories th')].map((th) => [th.textContent, th.title])"
    )
    shown = {}
    for lang in ("zh", "en"):
        _open(driver, url)
        driver.execute_script(f"localStorage.setItem('k12eval.lang', '{lang}')")
        _open(driver, url)
        _wait(driver, "#table-cmmlu_categories th")
        shown[lang] = dict(driver.execute_script(heads))
    assert "Humanities" in csv and "人文学科" in shown["zh"]
    assert shown["zh"]["人文学科"].endswith("：Humanities")
    assert shown["en"].get("Humanities") == ""
