"""Line-numbered readers shared by the importers; bad lines become :class:`Problem` s, never tracebacks."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg.errors import InputError, Problem

_OPTION_LABEL = re.compile(r"^\s*([A-Za-z]|\d{1,2})\s*[.．、:：)）]\s*", re.S)


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any] | Problem]]:
    """Yield ``(line_number, object)`` for every non-blank line; malformed lines yield a Problem."""
    try:
        handle = path.open(encoding="utf-8-sig")
    except OSError as exc:
        yield 0, Problem(path, None, None, f"cannot read file: {exc.strerror}")
        return
    with handle:
        try:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    yield number, Problem(path, number, None, f"not valid JSON ({exc.msg} at column {exc.colno})")
                    continue
                except (RecursionError, ValueError) as exc:  # nested too deep; an integer over 4,300 digits
                    reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(";")[0]
                    yield number, Problem(path, number, None, f"not readable JSON ({reason})")
                    continue
                if not isinstance(obj, dict):
                    yield number, Problem(path, number, None, f"expected a JSON object, got {type(obj).__name__}")
                    continue
                yield number, obj
        except UnicodeDecodeError as exc:
            yield 0, Problem(path, None, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")


def jsonl_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """:func:`iter_jsonl` for readers that stop at the first bad line: it raises :class:`InputError`."""
    for number, obj in iter_jsonl(path):
        if isinstance(obj, Problem):
            raise InputError.from_problem(obj)
        yield number, obj


def iter_csv(path: Path, delimiter: str = ",") -> Iterator[tuple[int, dict[str, str] | Problem]]:
    """Yield ``(line_number, row)`` for every data row of a CSV with a header line.

    The line number is the row's first physical line, so quoted multi-line cells
    still point the user at the right place.
    """
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError as exc:
        yield 0, Problem(path, None, None, f"cannot read file: {exc.strerror}")
        return
    with handle:
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            header = next(reader, None)
            if header is None:
                return
            header = [h.strip() for h in header]
            start = reader.line_num + 1
            for row in reader:
                if not any(cell.strip() for cell in row):
                    start = reader.line_num + 1
                    continue
                if len(row) != len(header):
                    yield start, Problem(path, start, None, f"expected {len(header)} columns, found {len(row)}")
                else:
                    yield start, dict(zip(header, row, strict=True))
                start = reader.line_num + 1
        except UnicodeDecodeError as exc:
            yield 0, Problem(path, None, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        except csv.Error as exc:
            yield reader.line_num, Problem(path, reader.line_num, None, f"malformed CSV: {exc}")


def csv_header(path: Path, delimiter: str = ",") -> list[str] | None:
    """The stripped header cells of a CSV file; ``None`` when it cannot be read or is empty."""
    header = read_csv_header(path, delimiter)
    return None if isinstance(header, Problem) else header


def read_csv_header(path: Path, delimiter: str = ",") -> list[str] | Problem:
    """The stripped header cells of a CSV file, or the Problem that prevents reading them."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle, delimiter=delimiter), None)
    except OSError as exc:
        return Problem(path, None, None, f"cannot read file: {exc.strerror}")
    except UnicodeDecodeError as exc:
        return Problem(path, None, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
    except csv.Error as exc:
        return Problem(path, 1, None, f"malformed CSV header: {exc}")
    if not header or not any(cell.strip() for cell in header):
        return Problem(path, 1, None, "empty file: expected a header line naming the columns")
    return [cell.strip() for cell in header]


def first_csv(path: Path, subfolders: tuple[str, ...] = ()) -> Path | None:
    """``path`` if it is a CSV file, else the first CSV in one of ``subfolders`` or in ``path`` itself."""
    if path.is_file():
        return path if path.suffix.lower() == ".csv" else None
    if not path.is_dir():
        return None
    for folder in [path / name for name in subfolders] + [path]:
        if folder.is_dir():
            found = min(folder.glob("*.csv"), default=None)
            if found is not None:
                return found
    return None


def split_option(text: str) -> tuple[str, str] | None:
    """Split ``"A.text"`` / ``"1.text"`` into label and text; ``None`` if it has no label."""
    match = _OPTION_LABEL.match(text)
    if not match:
        return None
    return match.group(1).upper(), text[match.end() :].strip()


def first_record(path: Path) -> dict[str, Any] | None:
    """The first JSON object of a JSONL file (or of the first JSONL file in a folder tree), if any."""
    files = [path] if path.is_file() else sorted(path.rglob("*.jsonl"))[:3]
    for file in files:
        if file.suffix != ".jsonl":
            continue
        for _, obj in iter_jsonl(file):
            if isinstance(obj, dict):
                return obj
            break
    return None
