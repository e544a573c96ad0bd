"""Hostile inputs to the importers (#14 finding 8): each ends in questions or one located error, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from kg.errors import InputError
from kg.importers import load_questions
from tests.importer_helpers import FIXTURES, assert_names, ck12_record, single_problem, write_jsonl

runner = CliRunner()
MAPPING = FIXTURES / "mapped" / "mapping.toml"


def mapped_record(**changes: Any) -> dict[str, Any]:
    """A good record of the mapped fixture's layout (see tests/fixtures/importers/mapped), changed as asked."""
    record: dict[str, Any] = {
        "qid": "m1",
        "kind": "single_choice",
        "text": "1+1=?",
        "choices": ["1", "2"],
        "gold": "B",
        "course": "数学",
        "unit": "加法",
        "lang": "zh",
        "tags": [],
    }
    record.update(changes)
    return record


def cli_error(*args: str) -> str:
    """The one stderr line of a refused ``kg stats``; fails on a traceback or another exit status."""
    result = runner.invoke(app, ["kg", "stats", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@pytest.mark.parametrize("value", [17, ["x"], {"a": 1}, True])
def test_ck12_non_string_analysis_is_named(tmp_path: Path, value: object) -> None:
    data = write_jsonl(tmp_path / "a.jsonl", [ck12_record(id="ok"), ck12_record(analysis=value)])
    assert_names(single_problem(data), data, 2, "analysis", "expected")


@pytest.mark.parametrize("key", ["difficulty", "task_semester", "knowledge_tree"])
def test_ck12_other_text_fields_are_typed(tmp_path: Path, key: str) -> None:
    data = write_jsonl(tmp_path / "a.jsonl", [ck12_record(**{key: ["x"]})])
    assert_names(single_problem(data), data, 1, key, "expected")


def test_deep_nesting_and_huge_integers_name_their_line(tmp_path: Path) -> None:
    deep = json.dumps(ck12_record(id="deep"))[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}"
    huge = json.dumps(ck12_record(id="huge"))[:-1] + ', "x": ' + "9" * 5000 + "}"
    data = write_jsonl(tmp_path / "a.jsonl", [ck12_record(id="a"), deep, huge, ck12_record(id="b")])
    result = load_questions(data, skip_invalid=True)
    assert [q.id for q in result.questions] == ["a", "b"]
    assert [(p.path, p.line) for p in result.problems] == [(data, 2), (data, 3)]
    assert cli_error(str(data)).startswith(f"error: {data}, line 2")


def test_invalid_utf8_skips_only_its_line(tmp_path: Path) -> None:
    lines = [json.dumps(ck12_record(id=f"q{i}"), ensure_ascii=False).encode() for i in range(5)]
    lines[1] = lines[1].replace(b"1+1", b"1\xff+1")
    data = tmp_path / "a.jsonl"
    data.write_bytes(b"\n".join(lines) + b"\n")
    result = load_questions(data, skip_invalid=True)
    assert [q.id for q in result.questions] == ["q0", "q2", "q3", "q4"]
    (problem,) = result.problems
    offset = lines[1].index(b"\xff") + 1
    assert problem.line == 2 and "0xff" in str(problem) and f"byte {offset}" in str(problem), str(problem)
    assert cli_error(str(data)).startswith(f"error: {data}, line 2")


def test_invalid_utf8_in_a_csv_row_skips_only_that_row(tmp_path: Path) -> None:
    rows = [b",Question,A,B,C,D,Answer"] + [f"{i},q{i},a,b,c,d,A".encode() for i in range(4)]
    rows[2] = rows[2].replace(b"q1", b"q\xc3\x281")
    data = tmp_path / "test" / "math.csv"
    data.parent.mkdir()
    data.write_bytes(b"\n".join(rows) + b"\n")
    result = load_questions(data, "cmmlu", skip_invalid=True)
    assert [q.id.rsplit("/", 1)[1] for q in result.questions] == ["0", "2", "3"]
    (problem,) = result.problems
    assert (problem.line, problem.field) == (3, "Question") and "0xc3" in str(problem), str(problem)


def test_duplicate_id_names_file_and_line(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "x" / "a.jsonl", [ck12_record(id="d")])
    second = write_jsonl(tmp_path / "x" / "b.jsonl", [ck12_record(id="e"), ck12_record(id="d")])
    problem = single_problem(tmp_path / "x", "ck12")
    assert_names(problem, second, 2, "id", "duplicate", f"{first}, line 1")


@pytest.mark.parametrize("answer", ["TX", "T√", "对F", "√F", "TT"])
def test_judgment_answers_are_strict(tmp_path: Path, answer: str) -> None:
    record = ck12_record(task_type="判断", answer_option=["甲", "乙"], answer=answer)
    data = write_jsonl(tmp_path / "a.jsonl", [record])
    if answer == "TT":
        assert load_questions(data).questions[0].answer == [True, True]
    else:
        assert_names(single_problem(data), data, 1, "answer", "expected")


@pytest.mark.parametrize("prompt", ["", "   "])
def test_empty_ck12_stem_is_refused(tmp_path: Path, prompt: str) -> None:
    data = write_jsonl(tmp_path / "a.jsonl", [ck12_record(prompt=prompt)])
    assert_names(single_problem(data), data, 1, "prompt", "empty")


@pytest.mark.parametrize(
    ("change", "column"),
    [
        ({"text": True}, "text"),
        ({"text": 12}, "text"),
        ({"course": ["数学"]}, "course"),
        ({"choices": [["x"], "2"]}, "choices"),
        ({"choices": ["1", True]}, "choices"),
        ({"unit": {"a": 1}}, "unit"),
        ({"gold": {"a": 1}}, "gold"),
        ({"gold": [["B"]]}, "gold"),
    ],
)
def test_mapped_wrong_types_are_refused_not_stringified(tmp_path: Path, change: dict[str, Any], column: str) -> None:
    data = write_jsonl(tmp_path / "bank.jsonl", [mapped_record(**change)])
    problem = single_problem(data, mapping=MAPPING)
    assert_names(problem, data, 1, column, "expected")


def test_mapped_numbers_stay_welcome_where_they_are_natural(tmp_path: Path) -> None:
    record = mapped_record(qid=7, kind="fill_in_blank", gold=50, choices=None)
    question = load_questions(write_jsonl(tmp_path / "bank.jsonl", [record]), mapping=MAPPING).questions[0]
    assert (question.id, question.answer) == ("7", ["50"])


def test_lone_surrogate_is_refused_naming_the_field(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "a.jsonl", [ck12_record(id="ok"), json.dumps(ck12_record(prompt="x\ud83d"))])
    assert_names(single_problem(data), data, 2, "prompt", "surrogate")


def test_error_line_stays_one_line(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "a.jsonl", [ck12_record(id="a\nb\u2028c", task_type="nope\rx")])
    line = cli_error(str(data))
    assert "line 1" in line and "task_type" in line


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("where", ["alone", "in a folder"])
def test_fifo_is_refused_without_blocking(tmp_path: Path, where: str) -> None:
    folder = tmp_path / "bank"
    folder.mkdir()
    fifo = folder / "b.jsonl"
    os.mkfifo(fifo)
    if where == "in a folder":
        write_jsonl(folder / "a.jsonl", [ck12_record()])
    outcome: list[object] = []

    def attempt() -> None:
        try:
            outcome.append(load_questions(fifo if where == "alone" else folder, "ck12"))
        except InputError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the reader so the test process can end
        with open(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK), "w"):
            pass
        pytest.fail("the import blocked on a FIFO")
    assert isinstance(outcome[0], InputError) and "not a regular file" in str(outcome[0]), outcome
    assert str(fifo) in str(outcome[0])


def test_crlf_and_bom_import_cleanly(tmp_path: Path) -> None:
    data = tmp_path / "a.jsonl"
    lines = [json.dumps(ck12_record(id=f"q{i}"), ensure_ascii=False) for i in range(3)]
    data.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    assert [q.id for q in load_questions(data).questions] == ["q0", "q1", "q2"]


def test_jsonl_splits_on_newline_only(tmp_path: Path) -> None:
    text = "数\u2028学\x1c\x85"
    data = write_jsonl(tmp_path / "a.jsonl", [ck12_record(id="a", analysis=text), ck12_record(id="b")])
    questions = load_questions(data).questions
    assert [q.id for q in questions] == ["a", "b"] and questions[0].analysis == text.strip()


def test_shared_fixture_folder_still_imports(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "ck12", tmp_path / "ck12")
    assert len(load_questions(tmp_path / "ck12").questions) == 9
