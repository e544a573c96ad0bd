"""C-Eval: ``dev/``, ``val/``, ``test/`` folders of ``<subject>_<split>.csv`` (``id,question,A,B,C,D,answer,explanation``).

Point it at the release root, at one split folder or at one CSV. The model hub's
Parquet (``<subject>/<split>-00000-of-00001.parquet``, same columns) reads the same way. Question ids
are ``ceval/<split>/<subject>/<id>``; ``explanation`` becomes the analysis.
Subject names and categories come from ``subject_mapping.json`` when it sits
in the data's folder or its parent, else from the built-in table.

C-Eval publishes no answers for its test split: test files without answers are
skipped with a logged message (not an error), since they cannot be scored.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

from kg.errors import InputError, Problem
from kg.importers._ceval_subjects import SUBJECTS, english_name
from kg.importers._choice import (
    LETTERS,
    SPLITS,
    ChoiceRow,
    Subject,
    csv_files,
    has_columns,
    hub_subject_split,
    read_choice_csv,
    split_of,
    unknown_subject,
)
from kg.importers._found import Found, ImportOptions
from kg.importers._lines import iter_table, table_header

log = logging.getLogger(__name__)

COLUMNS = ("id", "question", *LETTERS)
"""Columns every C-Eval CSV has; ``answer`` is required except in the test split."""
_ROLES = {"id": "id", "stem": "question", "answer": "answer"}
MAPPING_FILE = "subject_mapping.json"


def detect(path: Path) -> bool:
    """A CSV (or a folder whose first CSV, in a split folder or itself) has C-Eval's header."""
    return has_columns(path, COLUMNS)


def subject_and_split(file: Path) -> tuple[str, str | None]:
    """``accountant_dev.csv`` -> ``("accountant", "dev")``; the folder names the split otherwise.

    A hub Parquet file is named by its folder: ``accountant/val-00000-of-00001.parquet``.
    """
    hub = hub_subject_split(file)
    if hub is not None:
        return hub
    key, _, split = file.stem.rpartition("_")
    if key and split in SPLITS:
        return key, split
    return file.stem, split_of(file)


def load_mapping(path: Path) -> dict[str, Subject] | Problem | None:
    """The subjects of ``subject_mapping.json`` in ``path``'s folder or its parent, if there is one."""
    folder = path if path.is_dir() else path.parent
    for candidate in (folder / MAPPING_FILE, folder.parent / MAPPING_FILE):
        if candidate.is_file():
            return parse_mapping(candidate)
    return None


def parse_mapping(file: Path) -> dict[str, Subject] | Problem:
    """``{subject: [English name, Chinese name, category]}`` as subjects, or the Problem with the file."""
    try:
        raw = json.loads(file.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Problem(file, getattr(exc, "lineno", None), None, f"cannot read the subject mapping: {exc}")
    if not isinstance(raw, dict):
        return Problem(file, None, None, "expected an object {subject: [English name, Chinese name, category]}")
    subjects: dict[str, Subject] = {}
    for key, value in raw.items():
        if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, str) and v for v in value)):
            return Problem(file, None, key, f"expected [English name, Chinese name, category], got {value!r:.80}")
        subjects[key] = _subject(key, value[0], value[1], value[2])
    return subjects


def _subject(key: str, en: str, zh: str, category: str) -> Subject:
    return Subject(key=key, zh=zh, categories=(category,), extra={"subject_key": key, "subject_en": en})


def subject_of(key: str, mapping: dict[str, Subject] | None) -> Subject:
    """C-Eval's facts about a subject key: the mapping file first, then the built-in table."""
    if mapping and key in mapping:
        return mapping[key]
    if key in SUBJECTS:
        zh, category = SUBJECTS[key]
        return _subject(key, english_name(key), zh, category)
    return unknown_subject(key, "C-Eval")


def read(path: Path, options: ImportOptions) -> Iterator[Found | Problem]:
    """Yield the questions (and problems) of every C-Eval CSV under ``path``."""
    files = csv_files(path)
    if not files:
        raise InputError.from_problem(
            Problem(
                path,
                None,
                None,
                "no C-Eval CSV or Parquet files here (expected dev/, val/ or test/ with <subject>_<split>.csv, "
                "or <subject>/<split>-*.parquet)",
            )
        )
    mapping = load_mapping(path)
    if isinstance(mapping, Problem):
        raise InputError.from_problem(mapping)
    skipped: list[Path] = []
    for file in files:
        if _unanswered_test_file(file):
            skipped.append(file)
            continue
        yield from read_file(file, mapping)
    if skipped:
        log.warning(
            "ceval: skipped %d test-split file(s) without answers (C-Eval does not publish test answers), e.g. %s",
            len(skipped),
            skipped[0],
        )
        if len(skipped) == len(files):
            raise InputError.from_problem(
                Problem(
                    path,
                    None,
                    "answer",
                    "only C-Eval test files without answers here: nothing to import (use the dev/ or val/ split)",
                )
            )


def _unanswered_test_file(file: Path) -> bool:
    """A test-split file with no ``answer`` column, or whose first row leaves it empty."""
    if subject_and_split(file)[1] != "test":
        return False
    header = table_header(file)
    if header is None or "answer" not in header:
        return True
    for _, row in iter_table(file):
        return isinstance(row, dict) and not row["answer"].strip()
    return True


def read_file(file: Path, mapping: dict[str, Subject] | None = None) -> Iterator[Found | Problem]:
    """The questions of one ``<subject>_<split>.csv``."""
    key, split = subject_and_split(file)
    yield from read_choice_csv(
        file, (*COLUMNS, "answer"), _pick, source="ceval", subject=subject_of(key, mapping), split=split, columns=_ROLES
    )


def _pick(_: int, row: dict[str, str]) -> ChoiceRow:
    return ChoiceRow(
        qid=row["id"].strip(),
        stem=row["question"],
        options=tuple(row[letter] for letter in LETTERS),
        answer=row["answer"],
        analysis=row.get("explanation", ""),
    )
