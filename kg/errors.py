"""Errors that speak to the user: every one names the file, the line or record and the field."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

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

    def __str__(self) -> str:
        where = str(self.path)
        if self.line is not None:
            where += f", {self.unit} {self.line}"
        if self.record:
            where += f" (record {self.record})"
        if self.field:
            where += f", field '{self.field}'"
        return one_line(f"{where}: {self.message}")


def one_line(text: str) -> str:
    """``text`` with line breaks, control characters and lone surrogates escaped (``\\n``, ``\\ud83d``).

    An error names values taken from the input (ids, field names, paths); escaping them keeps the
    error one printable line whatever the input holds.
    """
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class InputError(Exception):
    """Bad input that stops a command; its text is meant for the user, without a traceback."""

    def __init__(self, message: str, problem: Problem | None = None) -> None:
        super().__init__(message)
        self.problem = problem

    @classmethod
    def from_problem(cls, problem: Problem) -> InputError:
        """Wrap a :class:`Problem` found while reading input."""
        return cls(str(problem), problem)


class OtherRunError(InputError):
    """An output (a run folder, a score file) holds the work of other options, so it cannot be resumed.

    ``path`` is that output: a caller that owns it (the demo's work folder) may move it aside and start again.
    """

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


class SettingError(InputError):
    """A setting the caller gave has a value that cannot be used.

    ``setting`` is the setting's name in the Python API (``nli``, ``judge``, ``prm_backend``); the text
    says what is wrong without naming any command-line option, so that each edge words it in its own
    terms: the command line puts its flag where the API's text has the setting's name.
    """

    def __init__(self, setting: str, value: object, problem: str) -> None:
        """``value``: the value at fault, ``None`` when the problem is the setting's values together."""
        super().__init__(one_line(f"{setting}{'' if value is None else f' {value!r}'}: {problem}"))
        self.setting = setting
        self.value = value
        self.detail = problem
