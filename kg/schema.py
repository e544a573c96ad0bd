"""The JSON Schema of :class:`~kg.records.Question`, checked in at ``schemas/question.schema.json``.

Regenerate it after changing the record::

    python -m kg.schema            # writes schemas/question.schema.json
    python -m kg.schema OTHER.json # or another path

A test fails while the checked-in file differs from :func:`render`.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from kg import records
from kg.records import RECORD_VERSION, Question

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schemas" / "question.schema.json"
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def question_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a question record, as pydantic generates it."""
    schema = Question.model_json_schema(mode="validation")
    _describe(schema, Question)
    for name, definition in schema.get("$defs", {}).items():
        model = getattr(records, name, None)
        if isinstance(model, type) and issubclass(model, BaseModel):
            _describe(definition, model)
    return {"$schema": DIALECT, "$id": f"k12eval/question.v{RECORD_VERSION}.schema.json", **schema}


def _describe(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """Copy the field docstrings of ``model`` (the string under each field) into the schema's descriptions."""
    for name, doc in attribute_docs(model).items():
        prop = schema.get("properties", {}).get(name)
        if prop is not None and "description" not in prop:
            prop["description"] = doc


def attribute_docs(cls: type) -> dict[str, str]:
    """``{field: docstring}`` for the fields of ``cls`` that have a string literal right below them."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(following.value.value)
    return docs


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
