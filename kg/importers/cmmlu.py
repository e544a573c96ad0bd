"""CMMLU: ``dev/`` and ``test/`` folders of ``<subject>.csv`` (unnamed index column, ``Question,A,B,C,D,Answer``).

Point it at the release root, at one split folder or at one CSV. The model hub's
Parquet (``<subject>/<split>-*.parquet`` or ``<subject>/<split>/*.parquet``, same
columns without the index) reads the same way. Question ids
are ``cmmlu/<split>/<subject>/<index>`` (``cmmlu/<subject>/<index>`` when the
file is not in a split folder). Subject names and categories come from CMMLU's
own table (:mod:`kg.importers._cmmlu_subjects`): the Chinese name is the graph's
subject and its own only knowledge point, the first category the ``group``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError, Problem
from kg.importers._choice import (
    LETTERS,
    ChoiceRow,
    Subject,
    csv_files,
    has_columns,
    hub_subject_split,
    read_choice_csv,
    split_of,
    unknown_subject,
)
from kg.importers._cmmlu_subjects import SUBJECTS, categories_of
from kg.importers._found import Found, ImportOptions
from kg.importers._lines import table_header

COLUMNS = ("Question", *LETTERS, "Answer")


def detect(path: Path) -> bool:
    """A CSV (or a folder whose first CSV, in ``dev/``, ``test/`` or itself) has CMMLU's header."""
    return has_columns(path, COLUMNS)


def subject_of(key: str) -> Subject:
    """CMMLU's facts about a subject key; an unknown key keeps its name and gets a warning."""
    if key not in SUBJECTS:
        return unknown_subject(key, "CMMLU")
    zh, subcategories = SUBJECTS[key]
    categories = categories_of(subcategories)
    return Subject(
        key=key,
        zh=zh,
        categories=categories,
        extra={"subject_key": key, "categories": list(categories), "subcategories": list(subcategories)},
    )


def read(path: Path, options: ImportOptions) -> Iterator[Found | Problem]:
    """Yield the questions (and problems) of every CMMLU CSV under ``path``."""
    files = csv_files(path)
    if not files:
        raise InputError.from_problem(
            Problem(
                path,
                None,
                None,
                "no CMMLU CSV or Parquet files here (expected dev/ or test/ with <subject>.csv, "
                "or <subject>/<split>-*.parquet)",
            )
        )
    for file in files:
        yield from read_file(file)


def read_file(file: Path) -> Iterator[Found | Problem]:
    """The questions of one ``<subject>.csv``; rows are numbered by the unnamed index column, else by position."""
    header = table_header(file) or []
    index_column = header[0] if header and header[0] not in COLUMNS else None
    roles = {"id": index_column or "(index column)", "stem": "Question", "answer": "Answer"}

    def pick(position: int, row: dict[str, str]) -> ChoiceRow:
        return ChoiceRow(
            qid=row[index_column].strip() if index_column is not None else str(position),
            stem=row["Question"],
            options=tuple(row[letter] for letter in LETTERS),
            answer=row["Answer"],
        )

    key, split = hub_subject_split(file) or (file.stem, split_of(file))
    yield from read_choice_csv(file, COLUMNS, pick, source="cmmlu", subject=subject_of(key), split=split, columns=roles)
