"""Records of a JSON list or a JSONL file, each with where it is (file, record number, line) for errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg.errors import InputError, Problem
from kg.jsonl import bad_byte, describe, json_error, open_text, read_lines

_SPACE = " \t\r\n"


def iter_records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, record)`` for every record of a JSON list or a JSONL file.

    ``where`` reads ``"FILE, record 3 (line 41)"`` for a JSON list and ``"FILE, line 41"`` for JSONL.
    JSONL is streamed line by line, each line at most the cap of :func:`kg.jsonl.read_lines`.
    """
    handle = open_text(path, newline="\n")
    if isinstance(handle, Problem):
        raise InputError.from_problem(handle)
    with handle:
        head = handle.read(4096)
        stripped = head.lstrip(_SPACE)
        if stripped.startswith("["):
            text = head + handle.read()
            where = bad_byte(text)
            if where is not None:
                raise InputError(f"{path}: not UTF-8 text ({where.replace('of the line', 'of the file')})")
            yield from _array(path, text)
            return
        handle.seek(0)
        # Lines end at "\n" only: str.splitlines() also breaks at U+2028, U+0085, \x1c... which JSON
        # strings may hold unescaped (a teacher's verdict exported with ensure_ascii=False).
        for number, line in read_lines(handle, path):
            if isinstance(line, Problem):
                raise InputError.from_problem(line)
            if not line.strip():
                continue
            where = bad_byte(line)
            if where is not None:
                raise InputError(f"{path}, line {number}: not UTF-8 text ({where})")
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                if number == 1 and stripped.startswith("{"):
                    _refuse_single_object(path, path.read_text(encoding="utf-8-sig", errors="replace"))
                raise InputError(f"{path}, line {number}: not valid JSON ({exc.msg})") from None
            yield f"{path}, line {number}", _object(f"{path}, line {number}", record)


def _array(path: Path, text: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The items of a top-level JSON array, decoded one at a time so each knows its line."""
    decoder = json.JSONDecoder()
    pos = _skip(text, text.index("[") + 1)
    line, counted = 1, 0
    index = 0
    if pos < len(text) and text[pos] == "]":
        return
    while True:
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            item, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}: not valid JSON ({json_error(exc)} at line {exc.lineno})") from None
        where = f"{path}, record {index} (line {line})"
        yield where, _object(where, item)
        index += 1
        pos = _skip(text, end)
        if pos < len(text) and text[pos] == ",":
            pos = _skip(text, pos + 1)
            continue
        if pos < len(text) and text[pos] == "]" and not text[_skip(text, pos + 1) :].strip(_SPACE):
            return
        at = text.count("\n", 0, pos) + 1
        raise InputError(f"{path}: not valid JSON (expected ',' or ']' at line {at})")


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


def _refuse_single_object(path: Path, text: str) -> None:
    """A pretty-printed JSON object is not a list of records: say so rather than "line 1 is not JSON"."""
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        return
    keys = ", ".join(list(whole)[:5]) if isinstance(whole, dict) else ""
    raise InputError(
        f"{path}: one JSON object (keys: {keys}); expected a JSON list of records or JSONL (one record per line)"
    )


def _object(where: str, record: Any) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object, got {describe(record)}")
    return record
