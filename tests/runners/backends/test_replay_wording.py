"""Replay files' errors name JSON values as the user wrote them, not Python's type names (#28 item 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kg.errors import InputError
from runners.backends.replay import ReplayBackend


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"id": None, "response": "A"}, "field 'id': expected text, got null"),
        ({"id": "q1", "response": 5}, "field 'response': expected text or a list of texts, got the number 5"),
        ({"id": "q1", "response": {"text": "A"}}, "field 'response': expected text or a list of texts, got an object"),
    ],
)
def test_a_replay_record_of_the_wrong_kind_is_named_in_plain_words(
    tmp_path: Path, record: dict[str, object], expected: str
) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as refused:
        ReplayBackend(str(path))
    assert expected in str(refused.value) and "NoneType" not in str(refused.value)
