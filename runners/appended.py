"""Append-only JSONL files (a run's ``records.jsonl``, a score file) read line by line within a cap.

One rule for every reader of a file k12eval appends to, whatever the file turned out to be:

* a link (``records.jsonl`` linked to ``/dev/zero``), FIFO, device or socket is refused by name, checked on
  the opened descriptor (opened without blocking, so a FIFO cannot hang the reader either);
* a line is read at most :func:`kg.jsonl.max_line_chars` bytes at a time: a longer complete line is an
  error naming its file and line, found by skipping the rest in bounded chunks, never held whole;
* a last line without its newline is torn (a write in progress, or cut by a kill; a tail of NUL bytes
  left by a crash is one too): it is reported as torn and never parsed as a record.

Reading goes through Python a chunk at a time, so a signal handler (``run``'s SIGTERM) runs while a
long file is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kg.errors import InputError, Problem
from kg.jsonl import max_line_chars
from runners.files import open_own

_SKIP_CHUNK = 2**20


@dataclass(frozen=True)
class Line:
    """One line of an append-only file."""

    number: int
    """1-based line number."""
    text: bytes
    """The line without its newline; empty for a torn line over the cap (not kept)."""
    end: int
    """Byte offset just after the line (and its newline)."""
    torn: bool
    """No newline after it: the last line, still being written or cut by a kill."""


def open_appended(path: Path) -> BinaryIO | None:
    """``path`` opened for reading in binary, or ``None`` when nothing is there.

    A link, folder, FIFO, device or socket is an :class:`InputError` naming it
    (:func:`runners.files.open_own`: never followed, a FIFO refused without waiting for a writer).
    """
    if not os.path.lexists(path):
        return None
    return os.fdopen(open_own(path, os.O_RDONLY), "rb")


def iter_appended(path: Path, handle: BinaryIO, limit: int | None = None) -> Iterator[Line]:
    """Every line of ``handle`` (opened by :func:`open_appended`), streaming, within ``limit`` bytes a line
    (default :func:`kg.jsonl.max_line_chars`); a complete line over it is an :class:`InputError` naming it."""
    cap = max_line_chars() if limit is None else limit
    number = offset = 0
    while True:
        raw = handle.readline(cap + 1)
        if not raw:
            return
        number += 1
        offset += len(raw)
        if raw.endswith(b"\n"):
            yield Line(number, raw[:-1], offset, torn=False)
            continue
        if len(raw) <= cap:
            yield Line(number, raw, offset, torn=True)
            return
        while True:  # over the cap: skip to the line's end a chunk at a time, holding none of it
            chunk = handle.readline(_SKIP_CHUNK)
            offset += len(chunk)
            if not chunk:
                yield Line(number, b"", offset, torn=True)
                return
            if chunk.endswith(b"\n"):
                break
        message = f"line longer than {cap:,} bytes; refused unread (cap: $K12EVAL_MAX_LINE_CHARS)"
        raise InputError.from_problem(Problem(path, number, None, message))


def decoded(path: Path, line: Line) -> str:
    """The line as text; bytes that are not UTF-8 are an :class:`InputError` naming the line and the byte."""
    try:
        return line.text.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"not UTF-8 text ({exc.reason} at byte {exc.start + 1} of the line)"
        raise InputError.from_problem(Problem(path, line.number, None, message)) from None
