"""Question-bank importers: one module a format, one explicit name table, no import side effects.

Every importer is a function ``read(path, options) -> Iterator[Found | Problem]``:
it yields a :class:`Found` (a :class:`~kg.records.Question` and where it was read) for
each good record and a :class:`~kg.errors.Problem` for each bad one, so the caller
decides whether a bad record stops the import (the default) or is counted and skipped
(``--skip-invalid``).
"""

from __future__ import annotations

import importlib
import stat
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from kg import plugins
from kg.errors import InputError, Problem, one_line
from kg.importers._found import Found as Found
from kg.importers._found import ImportOptions as ImportOptions
from kg.importers._found import located as located
from kg.records import Question

FORMATS: dict[str, str] = {
    "ck12": "kg.importers.ck12",
    "xiezhi": "kg.importers.xiezhi",
    "gaokao": "kg.importers.gaokao",
    "ceval": "kg.importers.ceval",
    "cmmlu": "kg.importers.cmmlu",
    "mapped": "kg.importers.mapped",
}
"""Format name -> module with ``read`` and ``detect``. Tried in this order by :func:`detect_format`:
the JSONL formats by their records' keys, GAOKAO-Bench's JSON files by their first key, then the CSV formats by
their headers
(C-Eval's lower-case ``question``, CMMLU's ``Question``); ``mapped`` is never
detected, it is chosen by giving a mapping file."""

FORMAT_GROUP = plugins.FORMAT_GROUP
"""Entry-point group of the bank formats other packages provide (``name = "package.module"``, a module with
``detect`` and ``read`` as the built-in ones have); read for a name :data:`FORMATS` does not have, and by
:func:`detect_format` after every built-in format has said no."""

VARIANTS = ("original", "shuffled", "distractors")


@dataclass
class ImportResult:
    """The questions read from a path, and the records that were skipped."""

    format: str
    questions: list[Question] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def skipped_by_reason(self) -> Counter[str]:
        """How many records were skipped, per field at fault."""
        return Counter(p.field or "record" for p in self.problems)


Reader = Callable[[Path, ImportOptions], Iterator[Found | Problem]]


def _module(name: str) -> ModuleType:
    """The importer module of format ``name``: built in, or an installed package's, checked."""
    if name in FORMATS:
        return importlib.import_module(FORMATS[name])
    entry = plugins.find(FORMAT_GROUP, name)
    if entry is None:
        raise InputError(f"unknown format {name!r}; choose one of {', '.join([*FORMATS, *plugin_formats()])}")
    module = plugins.load(entry, "bank format")
    if not all(callable(getattr(module, f, None)) for f in ("detect", "read")):
        raise InputError(f"bank format {name!r} ({plugins.where(entry)}) is not a module with detect and read")
    return module


def plugin_formats() -> list[str]:
    """The names of the installed packages' bank formats (``k12eval.bank_formats`` entry points); none loaded."""
    return plugins.installed(FORMAT_GROUP, FORMATS)


def format_names() -> str:
    """The built-in formats as a help text says them: ``ck12, xiezhi, gaokao, ceval, cmmlu or mapped``."""
    return plugins.or_list(list(FORMATS))


def detect_format(path: Path, mapping: Path | None = None) -> str:
    """Name of the format of ``path`` (a file or folder), judged from its layout.

    Raises :class:`InputError` naming what was looked for when nothing fits.
    """
    check_readable(path)
    if mapping is not None:
        return "mapped"
    for name in FORMATS:
        if _module(name).detect(path):
            return name
    for name in plugin_formats():  # an installed package's format after every built-in one said no
        if _module(name).detect(path):
            return name
    unreadable = _unreadable_table(path)
    if unreadable is not None:  # say why the table cannot be read, not that its format is unknown
        raise InputError.from_problem(unreadable)
    formats = ", ".join([*FORMATS, *plugin_formats()])
    raise InputError(
        lambda name: (
            f"{path}: cannot tell the format from its layout; pass {name('fmt')} with one of {formats} "
            f"(a JSONL or CSV of your own needs a mapping file naming its columns: {name('mapping')})"
        )
    )


def _unreadable_table(path: Path) -> Problem | None:
    """Why the first table file of ``path`` (a truncated Parquet file, a Git LFS pointer) cannot be read, if so."""
    from kg.importers._lines import first_csv, read_table_header

    table = first_csv(path, ("dev", "val", "test"))
    if table is None:
        return None
    header = read_table_header(table)
    return header if isinstance(header, Problem) else None


def check_readable(path: Path) -> None:
    """Raise :class:`InputError` unless ``path`` is a regular file or a folder.

    Checked before anything opens it: reading a FIFO blocks until someone writes to it,
    and a device may never end.
    """
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(one_line(f"{path}: no such file or folder")) from None
    except OSError as exc:
        raise InputError(one_line(f"{path}: cannot read it ({exc.strerror})")) from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(one_line(f"{path}: not a regular file or folder (a FIFO, device or socket is not read)"))


def iter_found(path: Path, fmt: str | None = None, options: ImportOptions | None = None) -> Iterator[Found | Problem]:
    """Yield the records of ``path`` with their places, and the problems, as the format's reader finds them."""
    options = options or ImportOptions()
    if options.variant not in VARIANTS:
        raise InputError(f"unknown variant {options.variant!r}; choose one of {', '.join(VARIANTS)}")
    check_readable(path)
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
    """Read every question under ``path`` (a regular file or a folder; a FIFO or device is refused unread).

    A bad record raises :class:`InputError` naming the file, line and field, unless
    ``skip_invalid`` is set: then it is left out and listed in ``ImportResult.problems``.
    Duplicate ids within one import are bad records too.
    """
    path = Path(path)
    name = fmt or detect_format(path, Path(mapping) if mapping else None)
    result = ImportResult(format=name)
    found = iter_questions(
        path,
        name,
        variant=variant,
        mapping=mapping,
        taxonomy=taxonomy,
        skip_invalid=skip_invalid,
        problems=result.problems,
    )
    result.questions.extend(found)
    return result


def iter_questions(
    path: Path | str,
    fmt: str | None = None,
    *,
    variant: str = "original",
    mapping: Path | str | None = None,
    taxonomy: Path | str | None = None,
    skip_invalid: bool = False,
    problems: list[Problem] | None = None,
) -> Iterator[Question]:
    """The questions of :func:`load_questions` one at a time, holding none of them (a bank of a million
    questions is counted or reported in the memory of its ids). With ``skip_invalid`` a bad record is
    appended to ``problems``; without, it raises :class:`InputError`."""
    path = Path(path)
    options = ImportOptions(
        variant=variant,
        mapping=Path(mapping) if mapping else None,
        taxonomy=Path(taxonomy) if taxonomy else None,
    )
    name = fmt or detect_format(path, options.mapping)
    seen: dict[str, tuple[Path, int]] = {}  # where each id was first read, to name both places of a duplicate
    for item in iter_found(path, name, options):
        if isinstance(item, Found) and item.question.id in seen:
            where, line = seen[item.question.id]
            item = Problem(
                item.path,
                item.line,
                "id",
                f"duplicate question id {item.question.id!r} (first at {where}, line {line})",
                record=item.question.id,
            )
        if isinstance(item, Problem):
            if not skip_invalid:
                raise InputError.from_problem(item)
            if problems is not None:
                problems.append(item)
            continue
        seen[item.question.id] = (item.path, item.line)
        yield item.question
