"""Line-numbered readers shared by the importers; bad lines become :class:`Problem` s, never tracebacks."""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from kg.errors import Problem, whole_file
from kg.jsonl import bad_byte, iter_jsonl, not_regular, open_text, read_lines

_OPTION_LABEL = re.compile(r"^\s*([A-Za-zＡ-Ｚａ-ｚ]|\d{1,2})\s*[.．、:：)）]\s*", re.S)
"""A label as typed on either keyboard: ``A.``, ``Ａ．``, ``1、``, ``１．``; read as its ASCII letter or digit."""


def iter_csv(path: Path, delimiter: str = ",") -> Iterator[tuple[int, dict[str, str] | Problem]]:
    """Yield ``(line_number, row)`` for every data row of a CSV with a header line.

    The line number is the row's first physical line, so quoted multi-line cells
    still point the user at the right place. A row with a byte that is not UTF-8,
    or that the csv module refuses (a cell over its size limit), is a Problem of
    its own: the rows after it are still read.
    """
    handle = open_text(path, newline="")
    if isinstance(handle, Problem):  # none of its rows can be read, nor counted
        yield 0, whole_file(handle, None)
        return
    with handle:
        too_long: list[Problem] = []
        reader = csv.reader(_capped(handle, path, too_long), delimiter=delimiter)
        header: list[str] | None = None
        start = 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                yield start, Problem(path, start, None, f"malformed CSV: {exc}")
                start = reader.line_num + 1
                continue
            if too_long:
                problem = too_long.pop()
                if header is None:  # no row can be read without the header: the whole file is left out
                    yield problem.line or start, whole_file(problem, None)
                    return
                yield problem.line or start, problem
            if header is None:
                header = [h.strip() for h in row]
                where = bad_byte("".join(row))
                if where is not None:
                    problem = Problem(path, 1, None, f"not UTF-8 text ({where.replace('the line', 'the header')})")
                    yield 1, whole_file(problem, None)
                    return
            elif any(cell.strip() for cell in row):
                yield start, _csv_row(path, start, header, row)
            start = reader.line_num + 1


def _capped(handle: TextIO, path: Path, too_long: list[Problem]) -> Iterator[str]:
    """The lines of ``handle`` for ``csv.reader``, each at most the line cap (:func:`kg.jsonl.read_lines`).

    A longer line is put in ``too_long`` and read as a blank line, so the rows after it are still read.
    """
    for _, line in read_lines(handle, path):
        if isinstance(line, Problem):
            too_long.append(line)
            yield "\n"
        else:
            yield line


def _csv_row(path: Path, line: int, header: list[str], row: list[str]) -> dict[str, str] | Problem:
    if len(row) != len(header):
        return Problem(path, line, None, f"expected {len(header)} columns, found {len(row)}")
    for name, cell in zip(header, row, strict=True):
        where = bad_byte(cell)
        if where is not None:
            return Problem(path, line, name, f"not UTF-8 text ({where.replace('the line', 'the cell')})")
    return dict(zip(header, row, strict=True))


def read_csv_header(path: Path, delimiter: str = ",") -> list[str] | Problem:
    """The stripped header cells of a CSV file, or the Problem that prevents reading them."""
    refused = not_regular(path)
    if refused is not None:
        return refused
    try:
        with path.open(encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
            header = next(csv.reader(handle, delimiter=delimiter), None)
    except OSError as exc:
        return Problem(path, None, None, f"cannot read file: {exc.strerror}")
    except csv.Error as exc:
        return Problem(path, 1, None, f"malformed CSV header: {exc}")
    if not header or not any(cell.strip() for cell in header):
        return Problem(path, 1, None, "empty file: expected a header line naming the columns")
    where = bad_byte("".join(header))
    if where is not None:
        return Problem(path, 1, None, f"not UTF-8 text ({where.replace('the line', 'the header')})")
    return [cell.strip() for cell in header]


def twice_named(header: list[str], wanted: Iterable[str]) -> tuple[str, str] | None:
    """The column read that ``header`` names twice and what is wrong with it, or ``None``: a row would give the
    last of the two cells, silently, where the other may be the one meant."""
    for name in wanted:
        places = [i + 1 for i, h in enumerate(header) if h == name]
        if len(places) > 1:
            return name, f"the header names {name!r} twice (columns {places[0]} and {places[1]}); which one is meant?"
    return None


TABLE_SUFFIXES = (".csv", ".parquet", ".arrow")
"""The table files the CSV importers read: CSV as released, Parquet as the model hub ships them,
Arrow as ``datasets.save_to_disk`` writes them."""
COLUMNAR = (".parquet", ".arrow")


def is_table(path: Path) -> bool:
    """Whether ``path`` is named as a CSV, Parquet or Arrow file."""
    return path.suffix.lower() in TABLE_SUFFIXES


def tables_in(folder: Path) -> list[Path]:
    """The CSV and Parquet files directly in ``folder``, sorted."""
    return sorted(p for p in folder.glob("*") if is_table(p) and not p.is_dir())


def first_csv(path: Path, subfolders: tuple[str, ...] = ()) -> Path | None:
    """``path`` if it is a table file, else the first one in ``subfolders``, in ``path``, or in a subject folder.

    The last places are the model hub's layouts: one folder per subject holding ``<split>-*.parquet``
    or ``<split>/0000.parquet`` (the parquet converter's), or ``datasets.save_to_disk`` folders
    (``<subject>/<split>/data-*.arrow``, or one subject's ``<split>/data-*.arrow``).
    """
    if path.is_file():
        return path if is_table(path) else None
    if not path.is_dir():
        return None
    for folder in [path / name for name in subfolders] + [path]:
        if folder.is_dir():
            found = min(tables_in(folder), default=None)
            if found is not None:
                return found
    for pattern in ("*/*.parquet", "*/*/*.parquet", "*/*.arrow", "*/*/*.arrow"):
        found = min(path.glob(pattern), default=None)
        if found is not None:
            return found
    return None


def read_table_header(path: Path) -> list[str] | Problem:
    """The column names of a CSV or Parquet file, or the Problem that prevents reading them."""
    if path.suffix.lower() in COLUMNAR:
        from kg.importers._parquet import parquet_columns

        return parquet_columns(path)
    return read_csv_header(path)


def table_header(path: Path) -> list[str] | None:
    """The column names of a CSV or Parquet file; ``None`` when they cannot be read."""
    header = read_table_header(path)
    return None if isinstance(header, Problem) else header


def iter_table(path: Path) -> Iterator[tuple[int, dict[str, str] | Problem]]:
    """Rows of a CSV (numbered by line) or Parquet or Arrow file (numbered by row from 1), as text cells."""
    if path.suffix.lower() in COLUMNAR:
        from kg.importers._parquet import iter_parquet

        yield from iter_parquet(path)
        return
    yield from iter_csv(path)


def count_rows(rows: Iterable[tuple[int, object]]) -> int:
    """How many records ``rows`` (:func:`iter_table`, :func:`iter_csv`, :func:`kg.jsonl.iter_jsonl`) holds, bad
    ones too: what a problem with the whole file leaves out."""
    return sum(1 for line, _ in rows if line)


def split_option(text: str) -> tuple[str, str] | None:
    """Split ``"A.text"`` / ``"1.text"`` into label and text; ``None`` if it has no label."""
    match = _OPTION_LABEL.match(text)
    if not match:
        return None
    return unicodedata.normalize("NFKC", match.group(1)).upper(), text[match.end() :].strip()


JSON_LINES_SUFFIXES = (".jsonl", ".json")
"""Files that may hold JSON lines: ``.jsonl``, and ``.json`` as Xiezhi releases its JSON-lines files
(``xiezhi.v1.1.json``). A ``.json`` file counts only when its first line is a JSON object
(:func:`first_object`): a pretty-printed document (a taxonomy, ``subject_mapping.json``) is not."""


def first_object(file: Path) -> dict[str, Any] | None:
    """The JSON object on the first non-blank line of ``file``; ``None`` when that line is not one."""
    if file.suffix.lower() not in JSON_LINES_SUFFIXES or not_regular(file) is not None:
        return None
    for _, obj in iter_jsonl(file):
        return obj if isinstance(obj, dict) else None
    return None


def json_lines_files(path: Path) -> list[Path]:
    """The JSON-lines files under ``path`` (the one file, or the folder tree's), sorted: every ``.jsonl``,
    and each ``.json`` whose first line is a JSON object."""
    if path.is_file():
        return [path]
    found = sorted(p for p in path.rglob("*") if p.suffix.lower() in JSON_LINES_SUFFIXES and not p.is_dir())
    return [p for p in found if p.suffix.lower() == ".jsonl" or first_object(p) is not None]


_LOOKED_AT = 20
"""Files :func:`first_record` opens at most in a folder tree before giving up."""


def first_record(path: Path) -> dict[str, Any] | None:
    """The first JSON object of a JSON-lines file (or of the first such file in a folder tree), if any."""
    files = [path] if path.is_file() else sorted(p for s in JSON_LINES_SUFFIXES for p in path.rglob(f"*{s}"))
    for file in files[:_LOOKED_AT]:
        record = first_object(file)
        if record is not None:
            return record
    return None
