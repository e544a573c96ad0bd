"""User messages speak the user's language, not Python's (#28 item 6): no "at at", no "NoneType",
no advice to call a Python function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.errors import InputError
from kg.importers import load_questions
from reasoning_metrics.metaeval.data import load_solutions
from tests.importer_helpers import ck12_record


def _problems(path: Path) -> list[str]:
    return [str(p) for p in load_questions(path, "ck12", skip_invalid=True).problems]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"id": "a", "prompt": "未闭合', "not valid JSON (Unterminated string starting at column 23)"),
        ("null", "expected a JSON object, got null"),
        ("[1, 2]", "expected a JSON object, got a list"),
        ('{"id": "a", "n": ' + "9" * 5000 + "}", "not usable JSON (an integer of more than 4,300 digits)"),
    ],
)
def test_a_bad_bank_line_is_named_in_plain_words(tmp_path: Path, line: str, expected: str) -> None:
    data = tmp_path / "bank.jsonl"  # the bad line last, without its newline (a file cut short)
    data.write_text(json.dumps(ck12_record(id="ok"), ensure_ascii=False) + "\n" + line, encoding="utf-8")
    [problem] = _problems(data)
    assert problem == f"{data}, line 2: {expected}"
    assert not any(word in problem for word in ("at at", "NoneType", "sys.", "set_int_max_str_digits"))


def test_a_meta_eval_record_of_the_wrong_kind_is_named_in_plain_words(tmp_path: Path) -> None:
    data = tmp_path / "chains.json"
    data.write_text(json.dumps([None]), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_solutions(data, "processbench")
    assert "NoneType" not in str(caught.value) and "got null" in str(caught.value)
