"""JSON Lines read safely: line-numbered, split at "\\n" only, each line decoded on its own.

Every reader of JSONL a user hands to k12eval (question banks, chain files, replay files) goes
through here, so one rule holds everywhere: a bad line (invalid UTF-8, not JSON, nested too
deep, an integer over Python's 4,300-digit limit, a lone surrogate) is a :class:`~kg.errors.Problem`
naming its line, never a traceback, and never spoils the lines after it. Append-only files that a
kill may leave with a torn last line (run records, scores) have their own readers
(``runners.store``, ``reasoning_metrics.score_store``).
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from kg.errors import InputError, Problem, whole_file

MAX_DEPTH = 64
"""Deepest nesting of lists and objects a JSONL record may have; no question bank needs more, and
deeper values break every later reader (``json``, ``repr``) on Python's recursion limit."""

MAX_LINE_CHARS = 16 * 2**20
"""Longest line (in characters) any reader of a user's line-based file accepts, unless
``$K12EVAL_MAX_LINE_CHARS`` says otherwise. A longer line is refused by number after being skipped
in chunks, so a compressed file that inflates to a gigabyte on one line costs neither the memory
nor the minutes of reading it whole. Real lines (a question, an lm-eval sample with its prompt,
a long chain of thought) are well under a megabyte."""
_SKIP_CHUNK = 2**20


def max_line_chars() -> int:
    """The line cap: ``$K12EVAL_MAX_LINE_CHARS`` if set to a positive whole number, else :data:`MAX_LINE_CHARS`."""
    value = os.environ.get("K12EVAL_MAX_LINE_CHARS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    return MAX_LINE_CHARS


def read_lines(handle: TextIO, path: Path, limit: int | None = None) -> Iterator[tuple[int, str | Problem]]:
    """``(line number, line)`` of each line of ``handle``, streaming; a line over ``limit`` characters
    (default :func:`max_line_chars`) is a Problem naming it, and is skipped without being held whole.
    """
    cap = max_line_chars() if limit is None else limit
    number = 0
    while True:
        line = handle.readline(cap + 1)
        if not line:
            return
        number += 1
        if line.endswith("\n") or len(line) <= cap:  # cap + 1 characters read: the cap and its newline
            yield number, line
            continue
        while not line.endswith("\n"):  # skip the rest of the line in bounded chunks
            line = handle.readline(_SKIP_CHUNK)
            if not line:
                break
        yield (
            number,
            Problem(
                path,
                number,
                None,
                f"line longer than {cap:,} characters; refused unread (cap: $K12EVAL_MAX_LINE_CHARS)",
            ),
        )


_BAD_BYTE = re.compile("[\udc80-\udcff]")
"""A byte that is not UTF-8, as ``errors="surrogateescape"`` decodes it."""


def not_regular(path: Path) -> Problem | None:
    """Why ``path`` cannot be read as a data file (missing, a folder, a FIFO, a device), or ``None``.

    Checked before opening: opening a FIFO for reading blocks until someone writes to it.
    """
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return Problem(path, None, None, f"cannot read file: {exc.strerror}")
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO, device or socket"
        return Problem(path, None, None, f"not a regular file ({kind}); expected a data file")
    return None


def open_text(path: Path, newline: str) -> TextIO | Problem:
    """``path`` opened as UTF-8 text (a BOM skipped, bad bytes kept as surrogates for :func:`bad_byte`),
    or the Problem that says why it cannot be: not a regular file, or not readable."""
    refused = not_regular(path)
    if refused is not None:
        return refused
    try:
        return path.open(encoding="utf-8-sig", errors="surrogateescape", newline=newline)
    except OSError as exc:
        return Problem(path, None, None, f"cannot read file: {exc.strerror}")


def bad_byte(text: str) -> str | None:
    """``"byte 0xff at byte 12 of the line"`` for the first byte of ``text`` that was not UTF-8, or ``None``."""
    match = _BAD_BYTE.search(text)
    if match is None:
        return None
    offset = len(text[: match.start()].encode("utf-8", "surrogateescape")) + 1
    where = f"byte 0x{ord(match.group()) - 0xDC00:02x} at byte {offset} of the line"
    if text.encode("utf-8", "surrogateescape").startswith((b"\xff\xfe", b"\xfe\xff")):
        return where + _UTF16_HINT
    return where + _GBK_HINT if _reads_as_gbk(text) else where


_GBK_HINT = "; it reads as GBK (GB18030) text: save the file as UTF-8 (iconv --from-code=GB18030 --to-code=UTF-8)"
_UTF16_HINT = "; the file is UTF-16 (Excel's 'Unicode Text'): save it as 'CSV UTF-8' (or iconv --from-code=UTF-16 --to-code=UTF-8)"


def _reads_as_gbk(text: str) -> bool:
    """Whether text that is not UTF-8 is Chinese in GBK, as Excel on a Chinese Windows saves CSV: every byte past
    ASCII opens a pair whose second byte is past ASCII too. Latin-1 also decodes as GBK (``naïve`` as ``na飗e``),
    but its accented letter is followed by a plain one."""
    raw = text.encode("utf-8", "surrogateescape")
    i, pairs = 0, 0
    while i < len(raw):
        if raw[i] < 0x80:
            i += 1
            continue
        if not (0x81 <= raw[i] <= 0xFE and i + 1 < len(raw) and 0x80 <= raw[i + 1] <= 0xFE):
            return False
        i, pairs = i + 2, pairs + 1
    return pairs > 0


def iter_jsonl(
    path: Path, *, replace_surrogates: bool = False, one_record_lists: bool = False
) -> Iterator[tuple[int, dict[str, Any] | Problem]]:
    """Yield ``(line_number, object)`` for every non-blank line; malformed lines yield a Problem.

    Lines end at ``\\n`` only (U+2028, U+0085 and other separators ``str.splitlines`` knows are
    text inside a record), and each line is decoded on its own: a byte that is not UTF-8 spoils
    its line, never the lines after it. ``one_record_lists``: see :func:`parse_json_line`.
    """
    handle = open_text(path, newline="\n")
    if isinstance(handle, Problem):  # none of its records can be read, nor counted
        yield 0, whole_file(handle, None)
        return
    with handle:
        for number, line in read_lines(handle, path):
            if isinstance(line, Problem):
                yield number, line
            elif line.strip():
                yield (
                    number,
                    parse_json_line(
                        line, path, number, replace_surrogates=replace_surrogates, one_record_lists=one_record_lists
                    ),
                )


def blank_file(path: Path) -> bool:
    """Whether ``path`` is a readable file with nothing but blank lines (an empty bank)."""
    handle = open_text(path, newline="\n")
    if isinstance(handle, Problem):
        return False
    with handle:
        return all(isinstance(line, str) and not line.strip() for _, line in read_lines(handle, path))


def parse_json_line(
    line: str, path: Path, number: int, *, replace_surrogates: bool = False, one_record_lists: bool = False
) -> dict[str, Any] | Problem:
    """One JSONL line as an object, or the Problem naming the line (and the key at fault, if one is).

    A lone surrogate (``"\\ud83d"``) in a string is a fault, unless ``replace_surrogates``: then it
    becomes U+FFFD, as for recorded model output, which is kept whatever it holds.
    ``one_record_lists``: a line that is a JSON list holding exactly one object is that object (the
    CK12 release's ``eval_results/llama2-zero_shot_128.json`` writes every line as ``[{...}]``); any
    other list is still refused, saying what it holds.
    """
    where = bad_byte(line)
    if where is not None:
        return Problem(path, number, None, f"not UTF-8 text ({where})")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return Problem(path, number, None, f"not valid JSON ({json_error(exc)} at column {exc.colno})")
    except ValueError:  # an integer over Python's 4,300-digit limit (its message advises a Python call)
        return Problem(path, number, None, "not usable JSON (an integer of more than 4,300 digits)")
    except RecursionError:
        return Problem(path, number, None, f"not usable JSON (nested deeper than {MAX_DEPTH} levels)")
    if one_record_lists and isinstance(obj, list):
        if len(obj) != 1 or not isinstance(obj[0], dict):
            got = "an empty list" if not obj else f"a list of {len(obj)} items"
            got = f"a list holding {describe(obj[0])}" if len(obj) == 1 else got
            return Problem(path, number, None, f"expected a JSON object or a list of one object, got {got}")
        obj = obj[0]
    if not isinstance(obj, dict):
        return Problem(path, number, None, f"expected a JSON object, got {describe(obj)}")
    if _SURROGATE_ESCAPE.search(line) is None and line.count("[") + line.count("{") <= MAX_DEPTH:
        return obj  # no escape that decodes to a surrogate, too few brackets to nest too deep: nothing to walk
    for key, value in obj.items():
        fault = value_fault(key, replace_surrogates) or value_fault(value, replace_surrogates)
        if fault is not None:
            return Problem(path, number, printable(key), fault)
    return _replaced(obj) if replace_surrogates else obj


def json_error(exc: json.JSONDecodeError) -> str:
    """The decoder's message fit to be followed by "at ...": ``Unterminated string starting at`` loses its ``at``."""
    return exc.msg.removesuffix(" at")


def value_fault(value: object, surrogates_ok: bool = False) -> str | None:
    """Why a decoded JSON value cannot be kept: a lone surrogate in a string (unless ``surrogates_ok``),
    or nesting over :data:`MAX_DEPTH`.

    Walked with a stack, not recursion, so a deep value cannot exhaust the interpreter's stack.
    """
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not surrogates_ok and _SURROGATE.search(item):
                return "contains a lone surrogate (e.g. \\ud83d), which is not Unicode text"
        elif isinstance(item, (list, dict)):
            if depth >= MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""The only way a lone surrogate reaches a decoded line: a ``\\uD800``-``\\uDFFF`` escape (a raw one is not
UTF-8 and was refused as a bad byte)."""


def _replaced(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD (nesting already bounded)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replaced(item) for item in value]
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    return value


def describe(value: object) -> str:
    """A short name for a JSON value of the wrong type: ``a list``, ``true``, ``the number 17``, ``'text'``.

    Never ``repr`` of the whole value: it may be megabytes long or nested past the recursion limit.
    """
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, int):
        return f"the number {value}" if abs(value) < 10**18 else "a number with many digits"
    if isinstance(value, str):
        return repr(value[:40] + ("..." if len(value) > 40 else ""))
    if isinstance(value, list):
        return "a list"
    return "an object" if isinstance(value, dict) else type(value).__name__


def printable(text: str) -> str:
    """``text`` with lone surrogates escaped, so that a message naming it can be printed."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def jsonl_objects(
    path: Path, *, replace_surrogates: bool = False, one_record_lists: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """:func:`iter_jsonl` for readers that stop at the first bad line: it raises :class:`InputError`."""
    for number, obj in iter_jsonl(path, replace_surrogates=replace_surrogates, one_record_lists=one_record_lists):
        if isinstance(obj, Problem):
            raise InputError.from_problem(obj)
        yield number, obj
