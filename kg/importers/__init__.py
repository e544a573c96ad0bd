"""Question-bank importers: one module a format, one explicit name table, no import side effects.

Every importer is a function ``read(path, options) -> Iterator[Question | Problem]``:
it yields a :class:`~kg.records.Question` for each good record and a
:class:`~kg.errors.Problem` for each bad one, so the caller decides whether a bad
record stops the import (the default) or is counted and skipped (``--skip-invalid``).
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from kg.errors import InputError, Problem
from kg.records import Question

FORMATS: dict[str, str] = {
    "ck12": "kg.importers.ck12",
    "xiezhi": "kg.importers.xiezhi",
    "ceval": "kg.importers.ceval",
    "cmmlu": "kg.importers.cmmlu",
    "mapped": "kg.importers.mapped",
}
"""Format name -> module with ``read`` and ``detect``. Tried in this order by :func:`detect_format`:
the JSONL formats by their records' keys, then the CSV formats by their headers
(C-Eval's lower-case ``question``, CMMLU's ``Question``); ``mapped`` is never
detected, it is chosen by giving a mapping file."""

VARIANTS = ("original", "shuffled", "distractors")


@dataclass(frozen=True)
class ImportOptions:
    """What an importer may be asked besides the path."""

    variant: str = "original"
    """CK12 released variant to read at the release root."""
    mapping: Path | None = None
    """Mapping file for the ``mapped`` format (JSONL / CSV with named columns)."""
    taxonomy: Path | None = None
    """Xiezhi discipline taxonomy (``subjects_tree_chn.json`` or its folder); found beside the data if omitted."""


@dataclass
class ImportResult:
    """The questions read from a path, and the records that were skipped."""

    format: str
    questions: list[Question] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def skipped_by_reason(self) -> Counter[str]:
        """How many records were skipped, per field at fault."""
        return Counter(p.field or "record" for p in self.problems)


Reader = Callable[[Path, ImportOptions], Iterator[Question | Problem]]


def _module(name: str) -> ModuleType:
    try:
        return importlib.import_module(FORMATS[name])
    except KeyError:
        raise InputError(f"unknown format {name!r}; choose one of {', '.join(FORMATS)}") from None


def detect_format(path: Path, mapping: Path | None = None) -> str:
    """Name of the format of ``path`` (a file or folder), judged from its layout.

    Raises :class:`InputError` naming what was looked for when nothing fits.
    """
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if mapping is not None:
        return "mapped"
    for name in FORMATS:
        if _module(name).detect(path):
            return name
    raise InputError(
        f"{path}: cannot tell the format from its layout; pass --format with one of {', '.join(FORMATS)} "
        "(a JSONL or CSV of your own needs --mapping FILE naming its columns)"
    )


def iter_questions(
    path: Path, fmt: str | None = None, options: ImportOptions | None = None
) -> Iterator[Question | Problem]:
    """Yield the questions and problems of ``path`` as the format's reader finds them."""
    options = options or ImportOptions()
    if options.variant not in VARIANTS:
        raise InputError(f"unknown variant {options.variant!r}; choose one of {', '.join(VARIANTS)}")
    name = fmt or detect_format(path, options.mapping)
    reader: Reader = _module(name).read
    yield from reader(path, options)


def load_questions(
    path: Path | str,
    fmt: str | None = None,
    *,
    variant: str = "original",
    mapping: Path | str | None = None,
    taxonomy: Path | str | None = None,
    skip_invalid: bool = False,
) -> ImportResult:
    """Read every question under ``path``.

    A bad record raises :class:`InputError` naming the file, line and field, unless
    ``skip_invalid`` is set: then it is left out and listed in ``ImportResult.problems``.
    Duplicate ids within one import are bad records too.
    """
    path = Path(path)
    options = ImportOptions(
        variant=variant,
        mapping=Path(mapping) if mapping else None,
        taxonomy=Path(taxonomy) if taxonomy else None,
    )
    name = fmt or detect_format(path, options.mapping)
    result = ImportResult(format=name)
    seen: set[str] = set()
    for item in iter_questions(path, name, options):
        if isinstance(item, Question) and item.id in seen:
            item = Problem(path, None, "id", f"duplicate question id {item.id!r}", record=item.id)
        if isinstance(item, Problem):
            if not skip_invalid:
                raise InputError.from_problem(item)
            result.problems.append(item)
            continue
        seen.add(item.id)
        result.questions.append(item)
    return result
