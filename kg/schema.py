"""The JSON Schema of :class:`~kg.records.Question`, checked in at ``schemas/question.schema.json``.

Regenerate it after changing the record::

    python -m kg.schema            # writes schemas/question.schema.json
    python -m kg.schema OTHER.json # or another path

A test fails while the checked-in file differs from :func:`render`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from kg.records import RECORD_VERSION, Question

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "question.schema.json"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def question_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a question record, as pydantic generates it.

    Field descriptions are the docstrings under the fields of :mod:`kg.records`
    (pydantic's ``use_attribute_docstrings``), so the record's source is their one home.
    """
    schema = Question.model_json_schema(mode="validation")
    return {"$schema": DIALECT, "$id": f"k12eval/question.v{RECORD_VERSION}.schema.json", **schema}


def render() -> str:
    """The schema as the checked-in file holds it: indented, UTF-8, keys in a stable order."""
    return json.dumps(question_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def write(path: Path = SCHEMA_PATH) -> Path:
    """Write the schema to ``path`` and return it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(write(Path(sys.argv[1]) if len(sys.argv) > 1 else SCHEMA_PATH))
