"""CMMLU: ``dev/`` and ``test/`` folders of ``<subject>.csv`` (unnamed index column, ``Question,A,B,C,D,Answer``).

Point it at the release root, at one split folder or at one CSV. Question ids
are ``cmmlu/<split>/<subject>/<index>`` (``cmmlu/<subject>/<index>`` when the
file is not in a split folder). Subject names and categories come from CMMLU's
own table (:mod:`kg.importers._cmmlu_subjects`): the Chinese name is the graph's
subject and its own only knowledge point, the first category the ``group``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kg.errors import Problem
from kg.importers import ImportOptions
from kg.importers._choice import (
    LETTERS,
    SPLITS,
    ChoiceRow,
    Subject,
    build_question,
    header_problem,
    missing_columns,
    split_of,
)
from kg.importers._cmmlu_subjects import SUBJECTS, categories_of
from kg.importers._io import csv_header, first_csv, iter_csv
from kg.records import Question

COLUMNS = ("Question", *LETTERS, "Answer")
_ROLES = {"id": "", "stem": "Question", "answer": "Answer"}


def detect(path: Path) -> bool:
    """A CSV (or a folder whose first CSV, in ``dev/``, ``test/`` or itself) has CMMLU's header."""
    file = first_csv(path, SPLITS)
    header = csv_header(file) if file else None
    return header is not None and not missing_columns(header, COLUMNS) and "question" not in header


def files_to_read(path: Path) -> list[Path]:
    """The CSVs under ``path``: a split folder's files, each split of a release root, or the one file."""
    if path.is_file():
        return [path]
    split_dirs = [path / name for name in SPLITS if (path / name).is_dir()]
    folders = split_dirs or [path]
    return [file for folder in folders for file in sorted(folder.glob("*.csv"))]


def subject_of(key: str) -> Subject:
    """CMMLU's facts about a subject key; an unknown key keeps its name and gets a warning."""
    if key not in SUBJECTS:
        return Subject(
            key=key,
            zh=key,
            extra={"subject_key": key},
            warning=f"{key!r} is not one of CMMLU's 67 subjects: its file name is used as the subject",
        )
    zh, subcategories = SUBJECTS[key]
    categories = categories_of(subcategories)
    return Subject(
        key=key,
        zh=zh,
        categories=categories,
        extra={"subject_key": key, "categories": list(categories), "subcategories": list(subcategories)},
    )


def read(path: Path, options: ImportOptions) -> Iterator[Question | Problem]:
    """Yield the questions (and problems) of every CMMLU CSV under ``path``."""
    files = files_to_read(path)
    if not files:
        yield Problem(path, None, None, "no CMMLU CSV files here (expected dev/ or test/ with <subject>.csv)")
        return
    for file in files:
        yield from read_file(file)


def read_file(file: Path) -> Iterator[Question | Problem]:
    """The questions of one ``<subject>.csv``."""
    problem = header_problem(file, COLUMNS)
    if problem is not None:
        yield problem
        return
    header = csv_header(file) or []
    subject = subject_of(file.stem)
    split = split_of(file)
    prefix = "/".join(p for p in ("cmmlu", split, subject.key) if p)
    index_column = header[0] if header and header[0] not in COLUMNS else None
    roles = {**_ROLES, "id": index_column or "(index column)"}
    for position, (line, row) in enumerate(iter_csv(file)):
        if isinstance(row, Problem):
            yield row
            continue
        index = row[index_column].strip() if index_column is not None else str(position)
        yield build_question(
            ChoiceRow(
                qid=f"{prefix}/{index}" if index else "",
                stem=row["Question"],
                options=tuple(row[letter] for letter in LETTERS),
                answer=row["Answer"],
            ),
            source="cmmlu",
            subject=subject,
            columns=roles,
            file=file,
            line=line,
            extra={"split": split} if split else {},
        )
