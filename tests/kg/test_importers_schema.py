"""The checked-in JSON Schema of the question record is current and describes every field."""

from __future__ import annotations

import json

from kg.records import Question
from kg.schema import SCHEMA_PATH, render


def test_checked_in_schema_is_current() -> None:
    assert SCHEMA_PATH.is_file(), "run: python -m kg.schema"
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render(), (
        "schemas/question.schema.json is stale: run python -m kg.schema"
    )


def test_schema_covers_every_field_with_a_description() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["$schema"].endswith("2020-12/schema")
    assert set(schema["properties"]) == set(Question.model_fields)
    assert set(schema["required"]) == {n for n, f in Question.model_fields.items() if f.is_required()}
    assert schema["additionalProperties"] is False
    missing = [n for n, p in schema["properties"].items() if not p.get("description")]
    assert missing == []
    answer_items = {branch["items"]["type"] for branch in schema["properties"]["answer"]["anyOf"]}
    assert answer_items == {"string", "boolean"}


def test_field_descriptions_are_the_docstrings_under_the_fields() -> None:
    from kg.records import Knowledge, Option

    for model in (Question, Option, Knowledge):
        missing = [name for name, field in model.model_fields.items() if not field.description]
        assert missing == [], model.__name__
