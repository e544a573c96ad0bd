"""Chains from any harness: JSONL of ``id``, ``source``, ``hypothesis`` (and ``reference``, ``lang``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg.errors import InputError, Problem
from kg.jsonl import jsonl_objects
from reasoning_metrics.records import Chain

FIELDS = ("id", "source", "hypothesis", "reference", "lang")


def read_chains(path: Path) -> list[Chain]:
    """Every chain of ``path``; a bad line raises :class:`InputError` naming the line and the field."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    chains: list[Chain] = []
    seen: set[str] = set()
    for number, obj in jsonl_objects(path):
        chain = parse_chain(obj, path, number)
        if chain.id in seen:
            raise InputError.from_problem(Problem(path, number, "id", "duplicate chain id", record=chain.id))
        seen.add(chain.id)
        chains.append(chain)
    return chains


def parse_chain(obj: dict[str, Any], path: Path, line: int) -> Chain:
    """One JSON object as a :class:`Chain`."""
    rid = obj.get("id") if isinstance(obj.get("id"), str | int) else None

    def fail(field: str, message: str) -> InputError:
        return InputError.from_problem(Problem(path, line, field, message, record=None if rid is None else str(rid)))

    unknown = sorted(set(obj) - set(FIELDS))
    if unknown:
        raise fail(unknown[0], f"unknown field; a chain has {', '.join(FIELDS)}")
    if rid is None or not str(rid).strip():
        raise fail("id", "expected a non-empty string")
    if not isinstance(obj.get("source"), str):
        raise fail("source", "expected a string (the question)")
    for key in ("hypothesis", "reference"):
        value = obj.get(key)
        if key == "reference" and value is None:
            continue
        if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(s, str) for s in value))):
            raise fail(key, "expected a string or a list of step strings")
    lang = obj.get("lang")
    if lang not in (None, "zh", "en"):
        raise fail("lang", f"expected zh or en, got {lang!r}")
    return Chain(str(rid), obj["source"], obj["hypothesis"], obj.get("reference"), lang)
