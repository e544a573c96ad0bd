"""Errors that speak to the user: every one names the file, the line or record and the field."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


@dataclass(frozen=True)
class Problem:
    """One bad input record: where it is and what is wrong with it."""

    path: Path
    """File the record came from."""
    line: int | None
    """1-based line (JSONL, CSV data row counted from the file's first line), or ``None``."""
    field: str | None
    """Name of the offending field in the source's own terms, if one is to blame."""
    message: str
    """What is wrong and what was expected."""
    record: str | None = None
    """The record's id, where it could be read."""
    unit: str = "line"
    """What ``line`` counts: ``line`` (text files) or ``row`` (Parquet data rows, from 1)."""
    whole_file: bool = False
    """The problem is the file's, not one record's (a column or key the bank's reading needs is missing from it,
    its header cannot be read): skipping it leaves out every record of the file."""
    records: int | None = 1
    """How many records skipping it leaves out: 1 for a bad record; for a whole file, its records where they
    could be counted, ``None`` where not (the file cannot be read)."""
    files: int = 1
    """How many files a whole-file problem leaves out: more than 1 for a key no record of a folder's JSONL files
    has (``path`` is then the folder, whose other files may still be read)."""

    def __str__(self) -> str:
        where = str(self.path)
        if self.line is not None:
            where += f", {self.unit} {self.line}"
        if self.record:
            where += f" (record {self.record})"
        if self.field:
            where += f", field '{self.field}'"
        return one_line(f"{where}: {self.message}")

    def skipped(self) -> str:
        """The problem as a skipped one is named (``--skip-invalid``): a whole file's says the file's records went
        with it, and how many."""
        if not self.whole_file:
            return str(self)
        held = "records" if self.records is None else f"{self.records} record(s)"
        if self.files > 1:
            return f"{self}; those {self.files} files left out whole with their {held}"
        return f"{self}; the whole file left out with its {held}"


def whole_file(problem: Problem, records: int | None, files: int = 1) -> Problem:
    """``problem`` as the whole file's (or ``files`` files'), which holds ``records`` records (``None``: they cannot
    be counted)."""
    return replace(problem, whole_file=True, records=records, files=files)


def left_out(problems: Iterable[Problem]) -> tuple[int, int]:
    """The records skipping ``problems`` leaves out, counted, and the whole files among them whose records could
    not be counted."""
    problems = list(problems)
    return sum(p.records or 0 for p in problems), sum(p.records is None for p in problems)


def left_out_phrase(records: int, unread: int) -> str:
    """``5 invalid record(s) and 1 file(s) whose records could not be counted``: a run's count of what
    ``--skip-invalid`` left out (:func:`left_out`)."""
    return f"{records} invalid record(s)" + (
        f" and {unread} file(s) whose records could not be counted" if unread else ""
    )


def left_out_text(problems: Iterable[Problem]) -> str:
    """``5 invalid record(s), 3 of them in 1 file left out whole (bank.csv: 3)``: what skipping ``problems`` left
    out, in one phrase naming the first few whole files."""
    problems = list(problems)
    counted, uncounted = left_out(problems)
    files = [p for p in problems if p.whole_file]
    text = f"{counted} invalid record(s)"
    if files:
        in_files = sum(p.records or 0 for p in files)
        named = ", ".join(
            f"{p.path}{'' if p.files == 1 else f' ({p.files} files)'}: "
            f"{'not counted' if p.records is None else p.records}"
            for p in files[:3]
        )
        more = f", {len(files) - 3} more" if len(files) > 3 else ""
        of_them = f", {in_files} of them in" if in_files else " and"  # "0 of them": only files that cannot be counted
        text += f"{of_them} {sum(p.files for p in files)} file(s) left out whole ({named}{more})"
    if uncounted:
        text += f"; the records of {uncounted} unreadable file(s) are not counted"
    return one_line(text)


def one_line(text: str) -> str:
    """``text`` with line breaks, control characters and lone surrogates escaped (``\\n``, ``\\ud83d``).

    An error names values taken from the input (ids, field names, paths); escaping them keeps the
    error one printable line whatever the input holds.
    """
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class Namer(Protocol):
    """How an edge names a setting the caller gave, with a value it could take: the Python API by its keyword
    (:func:`api_name`: ``mode='few-shot'``), the command line by its flag (``k12eval.cli._wording``:
    ``--mode few-shot``)."""

    def __call__(self, setting: str, value: str | None = None) -> str: ...


Worded = str | Callable[[Namer], str]
"""An error's text: fixed, or made by a :data:`Namer` wherever it names a setting (``pass the bank with data=``
for the API, ``... with --data`` for the command line)."""


def api_name(setting: str, value: str | None = None) -> str:
    """A setting as the Python API names it: its keyword, ``data=``, or with a value, ``mode='few-shot'``."""
    return f"{setting}=" if value is None else f"{setting}={value!r}"


class InputError(Exception):
    """Bad input that stops a command; its text is meant for the user, without a traceback.

    A text that names a setting is made by a :data:`Namer` (:data:`Worded`): ``str(error)`` names it as the
    API does, :meth:`said` as the edge that reads the error does (the command line: its flag).
    """

    def __init__(self, message: Worded, problem: Problem | None = None) -> None:
        self.wording = message if callable(message) else None
        super().__init__(message if isinstance(message, str) else message(api_name))
        self.problem = problem

    def said(self, name: Namer) -> str:
        """The text with each setting named by ``name``."""
        return str(self) if self.wording is None else self.wording(name)

    @classmethod
    def from_problem(cls, problem: Problem) -> InputError:
        """Wrap a :class:`Problem` found while reading input."""
        return cls(str(problem), problem)

    @classmethod
    def from_worded_problem(cls, problem: Callable[[Namer], Problem]) -> InputError:
        """Wrap a :class:`Problem` whose message names a setting: ``problem(name)`` words it."""
        return cls(lambda name: str(problem(name)), problem(api_name))


class OtherRunError(InputError):
    """An output (a run folder, a score file) holds the work of other options, so it cannot be resumed.

    ``path`` is that output: a caller that owns it (the demo's work folder) may move it aside and start again.
    """

    def __init__(self, message: Worded, path: Path) -> None:
        super().__init__(message)
        self.path = path


class SettingError(InputError):
    """A setting the caller gave has a value that cannot be used.

    ``setting`` is the setting's name in the Python API (``nli``, ``judge``, ``prm_backend``); the text
    says what is wrong without naming any command-line option, so that each edge words it in its own
    terms: the command line puts its flag where the API's text has the setting's name (:meth:`said`), also
    for the other settings a :data:`Worded` problem names.
    """

    def __init__(self, setting: str, value: object, problem: Worded, *, quoted: bool = True) -> None:
        """``value``: the value at fault, ``None`` when the problem is the setting's values together; shown as
        its ``repr``, or as it is when not ``quoted`` (a path, a ``key=value`` pair already showing its quotes)."""
        self.setting = setting
        self.value = value
        self.quoted = quoted
        self.detail = problem if isinstance(problem, str) else problem(api_name)
        self._problem = problem
        super().__init__(self._lead(setting))
        self.wording = self.said  # it names a setting: each edge words it

    def _lead(self, lead: str, name: Namer = api_name) -> str:
        problem = self._problem if isinstance(self._problem, str) else self._problem(name)
        shown = "" if self.value is None else f" {self.value!r}" if self.quoted else f" {self.value}"
        return one_line(f"{lead}{shown}: {problem}")

    def said(self, name: Namer) -> str:
        """The text led by ``name``'s word for the setting (``--nli 'x': ...``), other settings named so too."""
        return self._lead(name(self.setting).rstrip("="), name)


class SettingOSError(OSError):
    """A file or database that cannot be used, where a setting would do without it (``cache``: score without
    the metrics cache); :meth:`said` words the way out as the edge names that setting."""

    def __init__(self, code: int, wording: Callable[[Namer], str], filename: str) -> None:
        super().__init__(code, wording(api_name), filename)
        self.wording = wording

    def said(self, name: Namer) -> str:
        """The reason with the setting named by ``name``."""
        return self.wording(name)
