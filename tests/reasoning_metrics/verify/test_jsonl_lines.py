"""JSONL is read line by line at "\\n" only: U+2028 and its kin inside a string are text (#14 finding 12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasoning_metrics.metaeval import load_solutions
from reasoning_metrics.metaeval._located import iter_records
from reasoning_metrics.metaeval.data import split_numbered
from reasoning_metrics.verify.judge_log import read_log

SEPARATORS = ["\u2028", "\u2029", "\x85"]
"""What str.splitlines() breaks at besides \\n and \\r that JSON writes unescaped (``ensure_ascii=False``);
the control characters it also breaks at (\\x0b, \\x1c...) are always escaped in JSON."""


@pytest.mark.parametrize("sep", SEPARATORS)
def test_a_teacher_verdict_export_with_a_line_separator_inside_a_string_is_read(tmp_path: Path, sep: str) -> None:
    records = [
        {"id": "a", "problem": f"Tom has 12 apples.{sep}How many?", "steps": [f"12 + 5 = 17{sep}ok"], "label": 0},
        {"id": "b", "problem": "A pen costs 3.", "steps": ["4 × 3 = 12"], "label": -1},
    ]
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records), encoding="utf-8")
    got = list(iter_records(path))
    assert [where for where, _ in got] == [f"{path}, line 1", f"{path}, line 2"]
    assert [r for _, r in got] == records
    solutions = load_solutions(path, "processbench")
    assert solutions[0].problem == records[0]["problem"] and solutions[0].steps == (f"12 + 5 = 17{sep}ok",)


def test_a_bad_line_after_a_separator_is_named_by_its_line(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    path.write_text('{"id": "a\u2028b"}\n{oops\n', encoding="utf-8")
    from kg.errors import InputError

    with pytest.raises(InputError, match=r"verdicts.jsonl, line 2: not valid JSON"):
        list(iter_records(path))


def test_a_numbered_solution_text_breaks_at_newlines_only() -> None:
    assert split_numbered("first\u2028still first\nsecond") == ["first\u2028still first", "second"]


def test_the_judge_log_keeps_an_answer_with_a_line_separator(tmp_path: Path) -> None:
    log = tmp_path / "judge.jsonl"
    lines = [
        {"id": "a", "response": "Step 2 is wrong.\u2028So: 2", "error": None, "model": "m", "backend": "replay"},
        {"id": "b", "response": "All correct", "error": None, "model": "m", "backend": "replay"},
    ]
    log.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines) + '{"id": "c", "resp', "utf-8")
    answers = read_log(log, "m", "replay")
    assert sorted(answers) == ["a", "b"]  # the torn last line is asked again
    assert answers["a"].response == "Step 2 is wrong.\u2028So: 2"
