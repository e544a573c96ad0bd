"""Parquet and Arrow tables read row by row, the way :func:`kg.importers._lines.iter_csv` reads CSV.

The model hub ships C-Eval and CMMLU as one Parquet file per subject and split;
``datasets.save_to_disk`` leaves Arrow files (the IPC stream format its ``ArrowWriter`` writes).
pyarrow is imported here, lazily, so importing the importers stays light. Rows
are numbered from 1 (the first data row) and a bad row is a :class:`Problem`
naming the file, the row and the column, never a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kg.errors import Problem, whole_file
from kg.jsonl import describe, not_regular

BATCH_ROWS = 1024
LFS_POINTER = b"version https://git-lfs.github.com/spec/"
"""How a Git LFS pointer file starts: what a clone without ``git lfs`` holds instead of the data."""


def _row_problem(path: Path, row: int | None, column: str | None, message: str) -> Problem:
    return Problem(path, row, column, message, unit="row")


def parquet_columns(path: Path) -> list[str] | Problem:
    """The column names of a Parquet file, or the Problem that prevents reading them."""
    refused = not_regular(path)
    if refused is not None:
        return refused
    kind = _kind(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(len(LFS_POINTER))
    except OSError as exc:
        return Problem(path, None, None, f"cannot read file: {exc.strerror}")
    if head == LFS_POINTER:
        return Problem(path, None, None, f"a Git LFS pointer file, not the {kind} data: fetch the file itself "
                       "(git lfs install && git lfs pull in the clone, or download it from the hub)")  # fmt: skip
    try:
        names = _schema(path).names
    except ImportError:
        return Problem(path, None, None, f"reading {kind} needs pyarrow (pip install pyarrow)")
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError and others for a bad file
        reason = " ".join(str(exc).split())[:200]
        return Problem(path, None, None, f"not a readable {kind} file, truncated or corrupt ({reason})")
    return [name.strip() for name in names]


def _kind(path: Path) -> str:
    return "Arrow" if path.suffix.lower() == ".arrow" else "Parquet"


def _schema(path: Path) -> Any:
    if path.suffix.lower() == ".arrow":
        return _arrow_reader(path).schema
    import pyarrow.parquet as pq

    return pq.read_schema(path)


def _arrow_reader(path: Path) -> Any:
    """A reader of an Arrow IPC file: the stream format ``datasets`` writes, else the file format."""
    import pyarrow as pa

    try:
        return pa.ipc.open_stream(pa.memory_map(str(path)))
    except pa.ArrowInvalid:
        return pa.ipc.open_file(pa.memory_map(str(path)))


def _batches(path: Path) -> Iterator[Any]:
    if path.suffix.lower() == ".arrow":
        yield from _arrow_reader(path)
        return
    import pyarrow.parquet as pq

    yield from pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS)


def iter_parquet(path: Path) -> Iterator[tuple[int, dict[str, str] | Problem]]:
    """Yield ``(row_number, cells)`` for every data row; cells are text, as a CSV's would be.

    Numbers become their text (``3.0`` -> ``"3"``), nulls become empty cells. A cell of
    any other kind (a list, a boolean) makes its row a Problem; later rows are still read.
    All-empty rows are skipped, as in CSV.
    """
    columns = parquet_columns(path)
    if isinstance(columns, Problem):  # none of its rows can be read, nor counted
        yield 0, whole_file(columns, None)
        return
    row = 0
    try:
        for batch in _batches(path):
            for values in batch.to_pylist():
                row += 1
                cells = _cells(path, row, columns, list(values.values()))
                if isinstance(cells, Problem) or any(cell.strip() for cell in cells.values()):
                    yield row, cells
    except Exception as exc:  # a corrupt page or undecodable text in pyarrow
        yield row + 1, _row_problem(path, row + 1, None, f"cannot read the row: {str(exc)[:200]}")


def _cells(path: Path, row: int, columns: list[str], values: list[Any]) -> dict[str, str] | Problem:
    cells: dict[str, str] = {}
    for name, value in zip(columns, values, strict=True):
        text = _text(value)
        if text is None:
            return _row_problem(path, row, name, f"expected text or a number, got {describe(value)}")
        cells[name] = text
    return cells


def _text(value: Any) -> str | None:
    """A cell as text; ``None`` for a kind no question cell can be."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return str(int(value)) if value.is_integer() else str(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None
