"""CSV cells a spreadsheet will not run: text starting ``= + - @``, tab or CR gets a leading ``'`` (OWASP).

Knowledge-point names, model names and answers are untrusted text; Excel and
LibreOffice read ``=HYPERLINK(...)`` or ``@SUM(...)`` in a CSV cell as a formula.
A leading apostrophe makes the cell text. Numbers stay as they are, in number
columns and as text (``-3.5`` is a number to a spreadsheet, not a formula), so
the CSVs still sort and sum. Parquet files are not spreadsheets and keep the raw text.

CSVs start with a UTF-8 byte order mark (``utf-8-sig``): Excel on a Chinese Windows reads a
CSV without one in the local code page (GBK) and shows the names garbled; pandas, Python's
``csv`` with ``encoding="utf-8-sig"`` and LibreOffice skip the mark. The ``.xlsx`` workbook
(:func:`write_xlsx`, openpyxl) gets the same cell guard: openpyxl stores a text cell that
starts with ``=`` as a formula. A workbook cannot hold the C0 control characters other than tab,
LF and CR (openpyxl refuses ``\\x0b`` or ``\\x01`` with ``IllegalCharacterError``): they are
stripped from the workbook's cells, names and headers; the CSVs keep the text as it was.

The guard looks at a cell as a spreadsheet will: after that stripping (the workbook's), and past
whatever leads the text without being shown (whitespace, control and format characters, a byte order
mark), with full-width signs (``＝``) read as their ASCII form. ``"\x01=HYPERLINK(...)"`` became a live
formula when the control character was stripped after the guard (#32 item 2).
"""

from __future__ import annotations

import json
import numbers
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

_TRIGGERS = ("=", "+", "-", "@")
_ALWAYS = ("\t", "\r")  # OWASP: a cell starting with either is quoted, whatever follows
_ILLEGAL_IN_XLSX = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")  # openpyxl's ILLEGAL_CHARACTERS_RE
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?")
_UNSEEN = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})  # what may lead a cell without being shown


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would read as a formula.

    Text that starts with a tab or CR, or whose first shown character (past whitespace, control and
    format characters; full-width signs read as ASCII) is ``= + - @``, unless it is a plain number.
    A value that is neither text nor a number (a list, an object) is judged by its text, as the file holds it.
    """
    if value is None or isinstance(value, (bool, numbers.Number)):
        return value
    text = value if isinstance(value, str) else str(value)
    if text.startswith(_ALWAYS):
        return "'" + text
    shown = _first_shown(text)
    if shown.startswith(_TRIGGERS) and not _NUMBER.fullmatch(shown.rstrip()):
        return "'" + text
    return value


def _first_shown(text: str) -> str:
    """``text`` from its first character a spreadsheet shows, in NFKC form (``＝`` is ``=``)."""
    start = 0
    while start < len(text) and (text[start].isspace() or unicodedata.category(text[start]) in _UNSEEN):
        start += 1
    return unicodedata.normalize("NFKC", text[start:])


def safe_frame(frame: pd.DataFrame, normalise: Callable[[Any], Any] = lambda value: value) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells and headers are ``normalise``d, then :func:`safe_cell`
    (the guard comes last: it judges the text the file will hold); number and bool columns untouched."""
    safe = frame.copy()
    for column in safe.columns:
        if not (pd.api.types.is_numeric_dtype(safe[column]) or pd.api.types.is_bool_dtype(safe[column])):
            safe[column] = safe[column].map(lambda value: safe_cell(normalise(value)))
    safe.columns = [safe_cell(normalise(str(c))) for c in safe.columns]
    return safe


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as a CSV spreadsheets open without running any cell (UTF-8 with a BOM, for Excel); a cell holding
    a list (questions.csv's ``groups``, ``further_places``) is its JSON text, never Python's ``('STEM',)``."""
    # RFC 4180 line ends: Python's csv quotes a cell holding any character of the line
    # terminator, so a bare CR inside a name is quoted too instead of splitting the row
    # (a reader would then start a row with the rest of the name: "=1...").
    return str(safe_frame(frame, _json_lists).to_csv(index=False, lineterminator="\r\n")).encode("utf-8-sig")


def _json_lists(value: Any) -> Any:
    """A list, tuple or dict as its JSON text (Chinese kept as it is); anything else as it is."""
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write ``frame`` to ``path`` as :func:`csv_bytes` gives it (in place: a report builds in a staging folder;
    a command writing one CSV on its own writes the bytes with ``runners.files.atomic_write``)."""
    path.write_bytes(csv_bytes(frame))


def write_xlsx(sheets: dict[str, pd.DataFrame], path: Path) -> None:
    """Write each frame of ``sheets`` to a sheet of the workbook ``path`` (needs openpyxl: ``k12eval[xlsx]``).

    Raises :class:`ModuleNotFoundError` when openpyxl is missing, before anything is written.
    """
    import openpyxl  # noqa: F401  (pandas names its engine only when it writes; fail before creating the file)

    with pd.ExcelWriter(path, engine="openpyxl") as writer:
        for name, frame in sheets.items():
            # Excel limits a sheet name to 31 characters.
            safe = safe_frame(frame, _strip_illegal)
            safe.to_excel(writer, sheet_name=_strip_illegal(name)[:31] or "sheet", index=False)


def _strip_illegal(value: Any) -> Any:
    """Text without the characters a workbook cannot hold (other values as they are)."""
    return _ILLEGAL_IN_XLSX.sub("", value) if isinstance(value, str) else value
