"""What an answer counts toward accuracy (#31 item 3): asked or not, and a judgment question's units per rule."""

from __future__ import annotations

from typing import Any

import pytest

from runners.counting import Units, asked, units
from runners.records import RunRecord


def _record(**fields: Any) -> RunRecord:
    base: dict[str, Any] = {"question_id": "q", "nodes": {}, "subject": "数学", "type": "single_choice", "gold": ["A"]}
    return RunRecord(prompt="题目", **(base | fields))


@pytest.mark.parametrize(
    ("fields", "counted"),
    [
        ({"parse_status": "failed", "error": "no recorded output"}, None),  # never answered: not asked, not wrong
        ({"parse_status": "skipped"}, None),  # cloze: CK12 does not score it
        ({"parse_status": "unparsed", "output": "不知道", "correct": False}, Units(0, 1)),  # unreadable: wrong
        ({"parse_status": "unparsed", "output": "不知道"}, Units(0, 1)),  # written before it was graded
        ({"output": "A", "correct": True}, Units(1, 1)),
    ],
)
def test_asked_or_not(fields: dict[str, Any], counted: Units | None) -> None:
    record = _record(**fields)
    assert asked(record) is (counted is not None)
    assert units(record) == counted


def test_a_judgment_question_counts_its_statements_under_each_rule() -> None:
    # Gold T F T; k12eval read T T (the third statement without a verdict); the release reads T, T, T from the text.
    record = _record(
        type="judgment", gold=[True, False, True], output="T T，第三题 T", extracted=[True, True],
        correct=False, partial=1 / 3,
    )  # fmt: skip
    assert units(record, "per-item") == Units(0, 1)
    assert units(record, "per-statement") == Units(1, 3)
    assert units(record, "ck12-release") == Units(2, 3)
    assert units(_record(type="judgment", gold=[True], parse_status="failed"), "ck12-release") is None
