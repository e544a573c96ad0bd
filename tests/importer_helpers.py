"""Helpers for the importer tests: fixture paths, writing small bad inputs, checking Problems."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg.errors import InputError, Problem
from kg.importers import load_questions

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "importers"


def ck12_record(**changes: Any) -> dict[str, Any]:
    """A record with the CK12 release's twelve keys (invented content: a 初中 数学 single choice), changed as asked."""
    record: dict[str, Any] = {
        "id": "r1",
        "prompt": "1+1=（　　）",
        "answer_option": ["A.1", "B.2", "C.3", "D.4"],
        "answer": "B",
        "analysis": "",
        "task_type": "单选",
        "task_subject": "数学",
        "task_grade": "初中",
        "task_semester": "",
        "difficulty": "易",
        "knowledge_tree": "初中-数学-数与式-有理数",
        "knowledge_domain": ["初中", "数学", "知识点", "数与式", "有理数"],
    }
    record.update(changes)
    return record


def write_jsonl(path: Path, records: Sequence[dict[str, Any] | str]) -> Path:
    """Write records (dicts as JSON, strings as raw lines) one per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``, making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def single_problem(path: Path, fmt: str | None = None, **options: Any) -> Problem:
    """The one Problem found importing ``path``, after checking it also stops a strict import (one that is no
    record's, such as a bad mapping file or a folder without the format's files, stops ``--skip-invalid`` too)."""
    with pytest.raises(InputError) as stopped:
        load_questions(path, fmt, **options)
    try:
        result = load_questions(path, fmt, skip_invalid=True, **options)
    except InputError as still:
        assert still.problem is not None and str(still) == str(stopped.value)
        return still.problem
    assert len(result.problems) == 1, [str(p) for p in result.problems]
    problem = result.problems[0]
    assert str(stopped.value) == str(problem)
    return problem


def assert_names(problem: Problem, file: Path, line: int | None, field: str | None, *words: str) -> None:
    """The problem points at ``file``, ``line`` and ``field``, says so in its text, and mentions ``words``."""
    text = str(problem)
    assert problem.path == file, text
    assert problem.line == line, text
    assert problem.field == field, text
    assert str(file) in text
    if line is not None:
        assert f"line {line}" in text
    if field is not None:
        assert f"field '{field}'" in text
    for word in words:
        assert word in text, text
