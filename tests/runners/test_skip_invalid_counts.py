"""What ``--skip-invalid`` left out is counted and named where a user reads the figures: ``kg stats``, ``run``'s
printed summary and ``summary.json``, ``report``'s run line, ``summary.json`` and page.

A file left out whole (a column or key the mapping reads that it lacks) counts its records, not one: a bank of
5 questions, 3 of them in a CSV without the subject column, was said to have "1 invalid" record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import left_out, left_out_text
from kg.importers import load_questions
from runners.store import RunStore
from tests.importer_helpers import ck12_record, write_jsonl, write_text

MAPPING = """\
id = "编号"
stem = "题干"
options = ["选项A", "选项B"]
answer = "答案"
subject = "学科"
level1 = { value = "算术" }
type = { value = "single_choice" }
stage = { value = "初中" }
"""


def _mapped_bank(root: Path) -> tuple[Path, Path]:
    """A folder of three files: one good CSV (2 questions), one CSV without the 学科 column (3 rows), one JSONL
    whose records lack the 学科 key (2 records, one of them not JSON)."""
    write_text(
        root / "bank" / "good.csv", "编号,题干,选项A,选项B,答案,学科\np1,1+1=？,1,2,B,数学\np2,2+2=？,4,5,A,数学\n"
    )
    write_text(root / "bank" / "no_subject.csv", "编号,题干,选项A,选项B,答案\nq1,一,1,2,A\nq2,二,1,2,B\nq3,三,1,2,A\n")
    record = {"编号": "j1", "题干": "三加三", "选项A": "6", "选项B": "7", "答案": "A"}
    write_jsonl(root / "bank" / "misspelt.jsonl", [record, "{not json"])
    return root / "bank", write_text(root / "mapping.toml", MAPPING)


def test_a_file_left_out_whole_counts_its_records(tmp_path: Path) -> None:
    bank, mapping = _mapped_bank(tmp_path)
    result = load_questions(bank, "mapped", mapping=mapping, skip_invalid=True)
    assert sorted(q.id for q in result.questions) == ["p1", "p2"]
    by_file = {p.path.name: p for p in result.problems}
    assert {name: (p.whole_file, p.records) for name, p in by_file.items()} == {
        "no_subject.csv": (True, 3),
        "misspelt.jsonl": (True, 2),
    }
    assert left_out(result.problems) == (5, 0)
    assert by_file["no_subject.csv"].skipped().endswith("the whole file left out with its 3 record(s)")

    stats = CliRunner().invoke(app, ["kg", "stats", str(bank), "--mapping", str(mapping), "--skip-invalid", "--json"])
    assert stats.exit_code == 0, stats.output
    said = json.loads(stats.stdout)
    assert said["questions"] == 2 and said["invalid"] == 5 and said["invalid_by_field"] == {"学科": 5}
    assert len(said["invalid_files"]) == 2
    assert "skipped 5 invalid record(s), 5 of them in 2 file(s) left out whole" in stats.stderr
    assert f"{bank / 'no_subject.csv'}: 3" in stats.stderr and f"{bank / 'misspelt.jsonl'}: 2" in stats.stderr


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output


def test_run_and_report_say_how_many_records_were_left_out(tmp_path: Path) -> None:
    bank, mapping = _mapped_bank(tmp_path)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"id": "p1", "response": "B"}, {"id": "p2", "response": "B"}])
    out = tmp_path / "run"
    printed = _run("run", str(bank), "--mapping", str(mapping), "-b", "replay", "-m", str(answers), "-o", str(out),
                   "--skip-invalid")  # fmt: skip
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["all"]["n"] == 2 and summary["invalid"] == 5
    assert len(summary["invalid_records"]) == 2
    header = RunStore(out).read_header()
    assert header.data["invalid"] == 5 and header.data["skipped"] == summary["invalid_records"]
    line = next(line for line in printed.splitlines() if "left out (--skip-invalid)" in line)
    assert line.startswith("5 invalid record(s) of the bank left out (--skip-invalid), in no count above: ")
    assert "the whole file left out with its" in line and "1 more named in summary.json" in line

    report = tmp_path / "report"
    said = _run("report", str(out), "-o", str(report))
    assert re.search(r": 2 scored, .*; 2 of 2 questions asked; 5 invalid record\(s\) of the bank left out", said)
    written = json.loads((report / "summary.json").read_text(encoding="utf-8"))["runs"][0]
    assert written["invalid"] == 5 and written["invalid_records"] == summary["invalid_records"]
    html = (report / "index.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)[1])
    assert data["runs"][0]["invalid"] == 5 and data["runs"][0]["invalid_records"] == summary["invalid_records"]


def test_a_run_with_nothing_left_out_says_nothing(tmp_path: Path) -> None:
    records = [ck12_record(id="a"), ck12_record(id="bad", answer="E")]
    bank = write_jsonl(tmp_path / "bank" / "初中" / "数学" / "单选.jsonl", records)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{**r, "response": "答案是B"} for r in records])
    args = ("run", str(bank.parents[2]), "-m", str(answers), "-b", "replay")
    skipped = _run(*args, "-o", str(tmp_path / "skipped"), "--skip-invalid")
    assert "1 invalid record(s) of the bank left out (--skip-invalid), in no count above: " in skipped
    assert "line 2 (record bad), field 'answer'" in skipped and "more named" not in skipped
    good = write_jsonl(tmp_path / "good" / "初中" / "数学" / "单选.jsonl", records[:1])
    clean = _run("run", str(good.parents[2]), "-m", str(answers), "-b", "replay", "-o", str(tmp_path / "clean"))
    assert "left out" not in clean
    assert json.loads((tmp_path / "clean" / "summary.json").read_text(encoding="utf-8"))["invalid"] == 0


def test_a_run_left_with_no_question_by_invalid_records_says_why_not_the_filters(tmp_path: Path) -> None:
    """Every record of the bank invalid, under ``--skip-invalid``: every record is left out, and the run said
    "no question matches the filters", though no filter was given."""
    bank, mapping = _mapped_bank(tmp_path)
    (bank / "good.csv").unlink()
    args = ["run", str(bank), "--mapping", str(mapping), "-b", "replay", "-m", "x.jsonl", "-o", str(tmp_path / "run")]
    result = CliRunner().invoke(app, [*args, "--skip-invalid"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert "no question left: every record was invalid and left out; the first problem: " in result.output
    assert "field '学科'" in result.output and "filters" not in result.output


def test_a_bad_mapping_file_stops_skip_invalid_and_is_no_invalid_record(tmp_path: Path) -> None:
    """A mapping file without a required key is no record's fault: under ``--skip-invalid`` it was counted as
    "1 invalid record(s)" of a bank of 7, and the run said "every record was invalid"; so was an empty folder."""
    bank, _ = _mapped_bank(tmp_path)
    broken = write_text(tmp_path / "broken.toml", MAPPING.replace('level1 = { value = "算术" }\n', ""))
    for args in (
        ["kg", "stats", str(bank), "--mapping", str(broken), "--skip-invalid"],
        ["run", str(bank), "--mapping", str(broken), "-b", "replay", "-m", "x.jsonl", "-o", str(tmp_path / "run"),
         "--skip-invalid"],
    ):  # fmt: skip
        result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
        assert result.exit_code == 2, result.output
        assert f"{broken}, field 'level1': required" in result.output
        assert "invalid record" not in result.output and "every record" not in result.output
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(app, ["kg", "stats", str(tmp_path / "empty"), "--format", "ck12", "--skip-invalid"])
    assert result.exit_code == 2 and "no CK12 JSONL files for variant 'original' here" in result.output
    assert "invalid record" not in result.output


def test_a_file_that_cannot_be_opened_is_left_out_whole_not_counted_as_one_record(tmp_path: Path) -> None:
    """A folder named like a JSONL file, in a CK12 bank of 2 good records: it was "1 invalid record"."""
    good = write_jsonl(tmp_path / "bank" / "初中" / "数学" / "单选.jsonl", [ck12_record(id="a"), ck12_record(id="b")])
    (good.parent / "多选.jsonl").mkdir()
    result = load_questions(tmp_path / "bank", "ck12", skip_invalid=True)
    assert [q.id for q in result.questions] == ["a", "b"]
    [problem] = result.problems
    assert (problem.whole_file, problem.records) == (True, None) and left_out(result.problems) == (0, 1)
    assert left_out_text(result.problems) == (
        f"0 invalid record(s) and 1 file(s) left out whole ({good.parent / '多选.jsonl'}: not counted); "
        "the records of 1 unreadable file(s) are not counted"
    )
    stats = CliRunner().invoke(app, ["kg", "stats", str(tmp_path / "bank"), "--skip-invalid", "--json"])
    assert stats.exit_code == 0, stats.output
    said = json.loads(stats.stdout)
    assert (said["questions"], said["invalid"], said["invalid_by_field"]) == (2, 0, {})
    assert len(said["invalid_files"]) == 1 and " 0  bad" not in stats.stderr


def test_kg_stats_json_of_a_bank_left_with_no_question_is_json(tmp_path: Path) -> None:
    """The CMMLU feature shares of no question were written as NaN, which is not JSON (jq, JSON.parse refuse it)."""
    bank, mapping = _mapped_bank(tmp_path)
    (bank / "good.csv").unlink()
    args = ["kg", "stats", str(bank), "--mapping", str(mapping), "--skip-invalid", "--json"]
    stats = CliRunner().invoke(app, args)
    assert stats.exit_code == 0, stats.output

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    said = json.loads(stats.stdout, parse_constant=refuse)
    assert said["questions"] == 0 and said["features"]["negation"] == {
        "n": 0, "of": 0, "share": None, "low": None, "high": None
    }  # fmt: skip


@pytest.mark.slow
@pytest.mark.browser
def test_the_page_run_card_says_how_many_records_were_left_out_and_names_them(tmp_path: Path) -> None:
    from tests._browser import chromium, console_errors
    from tests.reports.test_report_browser import css

    bank, mapping = _mapped_bank(tmp_path)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"id": "p1", "response": "B"}, {"id": "p2", "response": "B"}])
    out, report = tmp_path / "run", tmp_path / "report"
    _run("run", str(bank), "--mapping", str(mapping), "-b", "replay", "-m", str(answers), "-o", str(out),
         "--skip-invalid")  # fmt: skip
    _run("report", str(out), "-o", str(report))
    named = json.loads((out / "summary.json").read_text(encoding="utf-8"))["invalid_records"]
    driver = chromium(tmp_path / "profile", tmp_path / "downloads")
    try:
        driver.get((report / "index.html").resolve().as_uri())
        card = css(driver, ".runcard details.invalid")
        summary = card.find_element("tag name", "summary")
        assert summary.text == "题库中有误而跳过的记录（--skip-invalid，不计入任何数字）：5 条"
        summary.click()
        assert [line.text for line in card.find_elements("css selector", "div")] == named
        assert console_errors(driver) == []
    finally:
        driver.quit()


def test_a_key_no_jsonl_file_of_a_folder_has_leaves_out_those_files_not_the_folder(tmp_path: Path) -> None:
    """The key check runs over all the folder's JSONL files: its one problem, named by the folder, was said to leave
    out "the whole file" and counted as 1 file, though the folder's CSV is still read."""
    bank, mapping = _mapped_bank(tmp_path)
    (bank / "no_subject.csv").unlink()
    write_jsonl(bank / "more.jsonl", [{"编号": "j2", "题干": "四加四", "选项A": "8", "选项B": "9", "答案": "A"}])
    result = load_questions(bank, "mapped", mapping=mapping, skip_invalid=True)
    assert sorted(q.id for q in result.questions) == ["p1", "p2"]  # good.csv, still read
    [problem] = result.problems
    assert problem.path == bank and (problem.records, problem.files) == (3, 2)
    assert problem.skipped().endswith("; those 2 files left out whole with their 3 record(s)")
    assert "the whole file" not in problem.skipped()
    assert left_out_text(result.problems) == (
        f"3 invalid record(s), 3 of them in 2 file(s) left out whole ({bank} (2 files): 3)"
    )


def test_a_filter_matching_none_of_a_bank_with_invalid_records_is_the_filters_not_the_records(tmp_path: Path) -> None:
    """A bank of 2 good questions and 1 invalid: ``--types judgment`` matched none, and the run said "every record
    was invalid and left out", though 2 were not."""
    bank, mapping = _mapped_bank(tmp_path)
    args = ["run", str(bank), "--mapping", str(mapping), "-b", "replay", "-m", "x.jsonl", "-o", str(tmp_path / "run")]
    result = CliRunner().invoke(app, [*args, "--skip-invalid", "--types", "judgment"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert "no question matches the filters" in result.output and "every record" not in result.output


def test_a_resumed_run_says_what_its_bank_left_out_now(tmp_path: Path) -> None:
    """Between two sessions the bank gained an invalid record (its good questions the same, so the run resumes): the
    second session logged 2 skipped but its summary, run.json and report kept the first session's 1."""
    bank = write_text(
        tmp_path / "bank.csv", "编号,题干,选项A,选项B,答案,学科\np1,1+1=？,1,2,B,数学\np2,二,4,5,E,数学\n"
    )
    mapping = write_text(tmp_path / "mapping.toml", MAPPING)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"id": "p1", "response": "B"}])
    out = tmp_path / "run"
    args = ("run", str(bank), "--mapping", str(mapping), "-b", "replay", "-m", str(answers), "-o", str(out))
    assert "1 invalid record(s) of the bank left out" in _run(*args, "--skip-invalid")
    with bank.open("a", encoding="utf-8") as more:
        more.write("p3,三,6,7,F,数学\n")
    again = _run(*args, "--skip-invalid")
    assert "1 already in the run folder" in again and "2 invalid record(s) of the bank left out" in again
    header = RunStore(out).read_header()
    assert header.data["invalid"] == 2 and "record p3" in header.data["skipped"][1]
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["invalid"] == 2
    assert "; 2 invalid record(s) of the bank left out" in _run("report", str(out), "-o", str(tmp_path / "report"))


@pytest.mark.slow
@pytest.mark.browser
def test_the_run_card_says_how_many_more_problems_than_it_shows_are_named(tmp_path: Path) -> None:
    """The card named the first 20 problems of 23 and said nothing of the other 3."""
    from tests._browser import chromium, console_errors
    from tests.reports.test_report_browser import css

    rows = "".join(f"p{i},第{i}题,1,2,{'B' if i == 0 else 'E'},数学\n" for i in range(24))
    bank = write_text(tmp_path / "bank.csv", "编号,题干,选项A,选项B,答案,学科\n" + rows)
    mapping = write_text(tmp_path / "mapping.toml", MAPPING)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"id": "p0", "response": "B"}])
    out, report = tmp_path / "run", tmp_path / "report"
    _run("run", str(bank), "--mapping", str(mapping), "-b", "replay", "-m", str(answers), "-o", str(out),
         "--skip-invalid")  # fmt: skip
    _run("report", str(out), "-o", str(report))
    driver = chromium(tmp_path / "profile", tmp_path / "downloads")
    try:
        driver.get((report / "index.html").resolve().as_uri())
        card = css(driver, ".runcard details.invalid")
        card.find_element("tag name", "summary").click()
        lines = [line.text for line in card.find_elements("css selector", "div")]
        assert len(lines) == 21 and "record p20" in lines[19]
        assert lines[20] == "……另有 3 处问题见该运行的 summary.json（invalid_records）"
        assert console_errors(driver) == []
    finally:
        driver.quit()


def _unreadable_bank(root: Path) -> tuple[Path, Path]:
    """A CK12 bank of 2 good questions beside a folder named like a JSONL file, and answers to both."""
    good = write_jsonl(root / "bank" / "初中" / "数学" / "单选.jsonl", [ck12_record(id="a"), ck12_record(id="b")])
    (good.parent / "多选.jsonl").mkdir()
    answers = write_jsonl(root / "answers.jsonl", [{"id": i, "response": "答案是B"} for i in ("a", "b")])
    return root / "bank", answers


def test_a_file_whose_records_cannot_be_counted_is_said_by_run_and_report(tmp_path: Path) -> None:
    """It counts 0 records: the report's line and the page's card, shown only for a count above 0, said nothing."""
    bank, answers = _unreadable_bank(tmp_path)
    out = tmp_path / "run"
    printed = _run("run", str(bank), "-b", "replay", "-m", str(answers), "-o", str(out), "--skip-invalid")
    said = "0 invalid record(s) and 1 file(s) whose records could not be counted of the bank left out (--skip-invalid)"
    assert said in printed and "多选.jsonl: not a regular file" in printed
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert (summary["invalid"], summary["invalid_unread"], len(summary["invalid_records"])) == (0, 1, 1)
    report = tmp_path / "report"
    line = _run("report", str(out), "-o", str(report))
    assert "; 0 invalid record(s) and 1 file(s) whose records could not be counted of the bank left out" in line
    html = (report / "index.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)[1])
    assert (data["runs"][0]["invalid"], data["runs"][0]["invalid_unread"]) == (0, 1)


@pytest.mark.slow
@pytest.mark.browser
def test_the_run_card_names_a_file_whose_records_cannot_be_counted(tmp_path: Path) -> None:
    from tests._browser import chromium, console_errors
    from tests.reports.test_report_browser import css

    bank, answers = _unreadable_bank(tmp_path)
    out, report = tmp_path / "run", tmp_path / "report"
    _run("run", str(bank), "-b", "replay", "-m", str(answers), "-o", str(out), "--skip-invalid")
    _run("report", str(out), "-o", str(report))
    driver = chromium(tmp_path / "profile", tmp_path / "downloads")
    try:
        driver.get((report / "index.html").resolve().as_uri())
        card = css(driver, ".runcard details.invalid")
        summary = card.find_element("tag name", "summary")
        assert (
            summary.text
            == "题库中有误而跳过的记录（--skip-invalid，不计入任何数字）：0 条；另有 1 个文件无法读取，其记录数未计"
        )
        summary.click()
        [line] = [line.text for line in card.find_elements("css selector", "div")]
        assert "多选.jsonl: not a regular file" in line
        assert console_errors(driver) == []
    finally:
        driver.quit()
