"""`report` and `run` never overwrite or delete what a user keeps through ``--out`` (#32 item 1).

Each case was a hostile or careless ``--out`` that lost files before: ``report RUN --out RUN``
deleted the run's records, ``report A --out B`` deleted run B, ``--out ''`` wiped the current
folder, any folder holding an ``index.html`` or ``summary.json`` was taken for an old report;
``run -o DIR`` overwrote a foreign ``summary.json`` and ``run -o ''`` wrote into the current folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from reports import write_report
from reports.staging import MARKER
from tests._leftovers import here
from tests._runs import SMALL_ANSWERS, small_bank, write_answers, write_bank, write_run


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank", list(small_bank().values()))


@pytest.fixture
def run(tmp_path: Path, bank: Path) -> Path:
    return write_run(tmp_path / "run", small_bank(), SMALL_ANSWERS, bank=bank)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def _refused(result: Any, *words: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert all(word in line for word in words), line
    return line


def _work_in(folder: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> Path:
    """``folder``, made the current folder, holding ``files`` (name -> text)."""
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder


def _answers(tmp_path: Path) -> Path:
    return write_answers(tmp_path / "answers.jsonl", small_bank())


# report


def test_report_into_its_own_run_folder_is_refused(run: Path) -> None:
    before = snapshot(run)
    _refused(_invoke("report", str(run), "--out", str(run), "--no-plots"), "input")
    assert snapshot(run) == before


def test_report_into_another_run_folder_is_refused(run: Path, tmp_path: Path, bank: Path) -> None:
    other = write_run(tmp_path / "b", small_bank(), SMALL_ANSWERS, bank=bank, model="other")
    (other / "summary.json").write_text("{}", encoding="utf-8")  # every finished run has one
    before = snapshot(other)
    _refused(_invoke("report", str(run), "--out", str(other), "--no-plots"), "run folder")
    assert snapshot(other) == before


@pytest.mark.parametrize("given", ["", "."])
def test_report_into_the_current_folder_is_refused(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    here = _work_in(tmp_path / "work", monkeypatch, {"summary.json": '{"mine": 1}', "notes.md": "a week of notes"})
    _refused(_invoke("report", str(run), "--out", given, "--no-plots"), "current folder")
    assert snapshot(here) == {"summary.json": b'{"mine": 1}', "notes.md": b"a week of notes"}


def test_report_into_a_folder_holding_the_current_folder_is_refused(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = tmp_path / "home"
    (parent / "work").mkdir(parents=True)
    (parent / "index.html").write_text("<p>my page</p>", encoding="utf-8")
    monkeypatch.chdir(parent / "work")
    _refused(_invoke("report", str(run), "--out", "..", "--no-plots"), "current folder")
    assert (parent / "index.html").read_text(encoding="utf-8") == "<p>my page</p>"


def test_report_into_the_bank_or_a_folder_holding_it_is_refused(run: Path, bank: Path, tmp_path: Path) -> None:
    (bank / "summary.json").write_text("{}", encoding="utf-8")  # a downloaded bank with its own summary
    before = snapshot(tmp_path)
    _refused(_invoke("report", str(run), "--data", str(bank), "--out", str(bank), "--no-plots"), "input")
    _refused(_invoke("report", str(run), "--out", str(tmp_path), "--no-plots"), "holds the input")
    assert snapshot(tmp_path) == before


def test_a_folder_with_an_index_and_a_summary_but_no_marker_is_never_replaced(run: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for name, text in {"index.html": "<h1>my site</h1>", "summary.json": "{}", "photo.jpg": "jpeg"}.items():
        (site / name).write_text(text, encoding="utf-8")
    before = snapshot(site)
    _refused(_invoke("report", str(run), "--out", str(site), "--no-plots"), MARKER)
    assert snapshot(site) == before


@pytest.mark.slow
def test_a_marker_that_is_a_link_or_another_text_does_not_count(run: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "thesis.tex").write_text("years of work", encoding="utf-8")
    real = tmp_path / "real-marker"
    write_report([run], tmp_path / "r", plots=False)
    real.write_bytes((tmp_path / "r" / MARKER).read_bytes())
    (site / MARKER).symlink_to(real)
    _refused(_invoke("report", str(run), "--out", str(site), "--no-plots"), MARKER)
    (site / MARKER).unlink()
    (site / MARKER).write_text("anything", encoding="utf-8")
    _refused(_invoke("report", str(run), "--out", str(site), "--no-plots"), MARKER)
    assert (site / "thesis.tex").read_text(encoding="utf-8") == "years of work"


@pytest.mark.slow
def test_a_report_it_wrote_is_replaced_and_carries_the_marker(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    first = _invoke("report", str(run), "--out", str(out), "--no-plots", "--title", "first")
    assert first.exit_code == 0, first.output
    assert (out / MARKER).is_file()
    second = _invoke("report", str(run), "--out", str(out), "--no-plots", "--title", "second")
    assert second.exit_code == 0, second.output
    assert "<title>second" in (out / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_report_folder_the_user_put_files_into_is_not_replaced(run: Path, tmp_path: Path) -> None:
    # Before: the marker let the next report replace the folder whole, and a teacher's notes put into it went with it.
    out = tmp_path / "report"
    write_report([run], out, plots=False)
    (out / "批注.md").write_text("第 3 题的解析要再讲一遍", encoding="utf-8")
    (out / "tables" / "mine.csv").write_text("1,2", encoding="utf-8")
    line = _refused(_invoke("report", str(run), "--out", str(out), "--no-plots"), "tables/mine.csv, 批注.md")
    assert "which no report wrote" in line and "move them out first, or choose another --out" in line
    assert (out / "批注.md").read_text(encoding="utf-8") == "第 3 题的解析要再讲一遍"
    (out / "批注.md").unlink()
    (out / "tables" / "mine.csv").unlink()
    (out / ".DS_Store").write_bytes(b"\0")  # what a file browser leaves is no one's work
    again = _invoke("report", str(run), "--out", str(out), "--no-plots", "--title", "again")
    assert again.exit_code == 0, again.output
    assert "<title>again" in (out / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_a_report_written_before_the_marker_is_replaced_only_while_it_holds_nothing_else(
    run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    write_report([run], out, plots=False)
    (out / MARKER).unlink()  # as an older k12eval wrote it: its summary.json lists every file
    result = _invoke("report", str(run), "--out", str(out), "--no-plots", "--title", "again")
    assert result.exit_code == 0, result.output
    (out / MARKER).unlink()
    (out / "tables" / "my-notes.txt").write_text("mine", encoding="utf-8")
    _refused(_invoke("report", str(run), "--out", str(out), "--no-plots"), MARKER)
    assert (out / "tables" / "my-notes.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.slow
def test_a_folder_named_like_an_abandoned_build_is_kept_unless_a_build_left_it(run: Path, tmp_path: Path) -> None:
    dead = 2**22 + 12345  # above Linux's default pid_max: no process has it
    mine = tmp_path / f".report.build-{here(dead)}-mine"
    mine.mkdir()
    (mine / "data.csv").write_text("1,2", encoding="utf-8")
    write_report([run], tmp_path / "report", plots=False)
    assert (mine / "data.csv").read_text(encoding="utf-8") == "1,2"


# run


def test_run_into_a_folder_with_a_foreign_summary_is_refused(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    out.mkdir()
    (out / "summary.json").write_text('{"from": "another tool"}', encoding="utf-8")
    before = snapshot(out)
    result = _invoke("run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={_answers(tmp_path)}", "-o", str(out))
    _refused(result, "no run")
    assert snapshot(out) == before


@pytest.mark.parametrize("given", ["", "."])
def test_run_into_the_current_folder_is_refused(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    here = _work_in(tmp_path / "work", monkeypatch, {})
    result = _invoke("run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={_answers(tmp_path)}", "-o", given)
    _refused(result, "current folder")
    assert os.listdir(here) == []


def test_run_into_its_bank_or_a_folder_holding_it_is_refused(bank: Path, tmp_path: Path) -> None:
    answers = _answers(tmp_path)
    before = snapshot(tmp_path)
    for out in (bank, bank / "original_data", tmp_path):
        result = _invoke("run", str(bank / "original_data"), "-m", "r", "-b", "replay", "-B", f"path={answers}",
                         "-o", str(out))  # fmt: skip
        _refused(result, "input")
    assert snapshot(tmp_path) == before


def test_run_into_the_replayed_file_s_folder_is_refused(bank: Path, tmp_path: Path) -> None:
    (tmp_path / "outputs").mkdir()
    answers = _answers(tmp_path / "outputs")
    result = _invoke("run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(answers.parent))
    _refused(result, "holds the input")
    assert os.listdir(answers.parent) == ["answers.jsonl"]


def test_run_resumes_its_own_folder_and_starts_in_a_new_empty_or_lock_only_one(bank: Path, tmp_path: Path) -> None:
    answers = _answers(tmp_path)
    replay = ("-m", "r", "-b", "replay", "-B", f"path={answers}")
    for out in (tmp_path / "new", tmp_path / "empty", tmp_path / "stopped"):
        if out.name != "new":
            out.mkdir()
        if out.name == "stopped":  # a run killed before it wrote its header leaves its lock
            (out / ".lock").write_text("123\n", encoding="utf-8")
        assert _invoke("run", str(bank), *replay, "-o", str(out)).exit_code == 0
        again = _invoke("run", str(bank), *replay, "-o", str(out))
        assert again.exit_code == 0, again.output
        assert "0 new answer(s)" in again.output


def test_merge_into_a_foreign_folder_is_refused(bank: Path, tmp_path: Path) -> None:
    answers = _answers(tmp_path)
    shard = tmp_path / "s1"
    assert (
        _invoke("run", str(bank), "-m", "r", "-b", "replay", "-B", f"path={answers}", "-o", str(shard)).exit_code == 0
    )
    site = tmp_path / "site"
    site.mkdir()
    (site / "summary.json").write_text("{}", encoding="utf-8")
    _refused(_invoke("merge", str(shard), "-o", str(site)), "no run")
    _refused(_invoke("merge", str(shard), "-o", str(shard)), "input")
    assert os.listdir(site) == ["summary.json"]
