"""What CMMLU and C-Eval share: four-option single-choice rows (CSV or Parquet) grouped by named subject.

Both sources name a subject by a file-name key (``high_school_physics``) and
give it a Chinese name and a category. Neither has knowledge points below the
subject, so every question of a subject sits at ``subject / subject / subject``
in the graph (see docs/importers.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kg.errors import Problem, whole_file
from kg.importers._found import Found, located
from kg.importers._lines import (
    count_rows,
    first_csv,
    iter_table,
    read_table_header,
    table_header,
    tables_in,
    twice_named,
)
from kg.records import Knowledge, Option, Question, QuestionType, Stage, clean_id, detect_language

LETTERS = ("A", "B", "C", "D")
SPLITS = ("dev", "val", "test")
_HUB_SPLITS = {"dev": "dev", "val": "val", "validation": "val", "test": "test"}
_HUB_SHARD = re.compile(r"^(?P<split>[a-z]+)-\d+-of-\d+(?:-[0-9a-f]{16})?$")
"""``val-00000-of-00001``, or with the content hash older ``push_to_hub`` added: ``val-00000-of-00001-0a1b2c3d4e5f6a7b``."""
_STAGE_PREFIXES = {"小学": Stage.PRIMARY, "初中": Stage.MIDDLE, "高中": Stage.HIGH}


@dataclass(frozen=True)
class Subject:
    """A named subject of a multi-subject exam bank."""

    key: str
    """File-name key, e.g. ``high_school_physics``."""
    zh: str
    """Chinese name: the graph's subject."""
    categories: tuple[str, ...] = ()
    """The source's categories, the first being the subject's group."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Source-specific facts kept in every question's ``extra``."""
    warning: str | None = None
    """Set when the subject is not in the source's table."""

    @property
    def stage(self) -> Stage | None:
        """School stage when the Chinese name starts with 小学, 初中 or 高中."""
        for prefix, stage in _STAGE_PREFIXES.items():
            if self.zh.startswith(prefix):
                return stage
        return None

    def knowledge(self) -> Knowledge:
        """The subject is its own only knowledge point (level 1 and level 2)."""
        category = self.categories[0] if self.categories else None
        return Knowledge(category=category, level1=self.zh, level2=self.zh, path=[p for p in (category, self.zh) if p])


def csv_files(path: Path) -> list[Path]:
    """The tables under ``path``: the one file, each split folder's files of a release root, or a folder's own.

    A folder with none of those is read as the model hub's layout: ``<subject>/<split>-*.parquet``
    (or ``<subject>/<split>/*.parquet``), every Parquet file below it, or as folders that
    ``datasets.save_to_disk`` wrote (``<subject>/<split>/data-*.arrow``), every Arrow file below it.
    """
    if path.is_file():
        return [path]
    split_dirs = [path / name for name in SPLITS if (path / name).is_dir()]
    files = [file for folder in split_dirs or [path] for file in tables_in(folder)]
    return files or sorted(path.rglob("*.parquet")) or sorted(path.rglob("*.arrow"))


def hub_subject_split(file: Path) -> tuple[str, str | None] | None:
    """Subject key and split of a Parquet file in the hub's layout, or ``None`` for a file named as released.

    ``computer_network/val-00000-of-00001.parquet`` (or ``...-of-00001-<16 hex>.parquet``) ->
    ``("computer_network", "val")``; ``agronomy/test/0000.parquet`` -> ``("agronomy", "test")``;
    a ``datasets.save_to_disk`` folder: ``agronomy/test/data-00000-of-00001.arrow`` -> ``("agronomy", "test")``.
    """
    if file.suffix.lower() == ".arrow":
        return saved_subject_split(file)
    if file.suffix.lower() != ".parquet":
        return None
    shard = _HUB_SHARD.match(file.stem)
    if shard and shard.group("split") in _HUB_SPLITS:
        return file.parent.name, _HUB_SPLITS[shard.group("split")]
    if file.stem.isdigit() and file.parent.name in _HUB_SPLITS:
        return file.parent.parent.name, _HUB_SPLITS[file.parent.name]
    return None


def saved_subject_split(file: Path) -> tuple[str, str | None]:
    """Subject and split of an Arrow file of a ``datasets.save_to_disk`` folder.

    The folder holds ``data-NNNNN-of-NNNNN.arrow``, ``state.json`` (``_split``) and
    ``dataset_info.json`` (``config_name``: the hub configuration, C-Eval's and CMMLU's subject);
    ``DatasetDict.save_to_disk`` writes one such folder per split below ``dataset_dict.json``.
    Where the JSON files say nothing, the folders' names stand in.
    """
    folder = file.parent
    named = _json_text(folder / "state.json", "_split") or folder.name
    split = _HUB_SPLITS.get(named.split("[")[0])  # "test[:50%]" is a slice of test
    config = _json_text(folder / "dataset_info.json", "config_name")
    if config and config != "default":
        return config, split
    if folder.name in _HUB_SPLITS or (folder.parent / "dataset_dict.json").is_file():
        return folder.parent.name, split
    return folder.name, split


def _json_text(file: Path, key: str) -> str | None:
    """A text value of a small JSON object file, or ``None`` if it is missing, unreadable or not text."""
    try:
        value = json.loads(file.read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and value else None


def has_columns(path: Path, required: tuple[str, ...]) -> bool:
    """Whether ``path`` (or the first table of its split folders, of itself or of a subject folder) has ``required``."""
    file = first_csv(path, SPLITS)
    header = table_header(file) if file else None
    return header is not None and not missing_columns(header, required)


def unknown_subject(key: str, source: str) -> Subject:
    """A subject missing from the source's table: its file name stands in, with a warning."""
    return Subject(
        key=key,
        zh=key,
        extra={"subject_key": key},
        warning=f"{key!r} is not one of {source}'s subjects: its file name is used as the subject",
    )


def split_of(file: Path) -> str | None:
    """``dev`` / ``val`` / ``test`` from the file's folder, if it is named so."""
    return file.parent.name if file.parent.name in SPLITS else None


def unit_of(file: Path) -> str:
    """What a Problem's number counts in ``file``: Parquet rows, else text lines."""
    return "row" if file.suffix.lower() == ".parquet" else "line"


def missing_columns(header: list[str] | None, required: tuple[str, ...]) -> list[str]:
    """The required columns a CSV header lacks (all of them when there is no header)."""
    return [c for c in required if header is None or c not in header]


def header_problem(file: Path, required: tuple[str, ...]) -> Problem | None:
    """Why the table's header cannot be used (unreadable, empty, a required column missing), or ``None``: a
    problem with the whole file, which holds the records it counts."""
    header = read_table_header(file)
    if isinstance(header, Problem):
        return whole_file(header, None)
    parquet = file.suffix.lower() == ".parquet"
    twice = twice_named(header, required)
    missing = missing_columns(header, required)
    if twice:
        problem = Problem(file, None if parquet else 1, *twice)
    elif missing:
        problem = Problem(
            file,
            None if parquet else 1,
            missing[0],
            f"missing column(s) {', '.join(missing)}; the {'columns are' if parquet else 'header has'} "
            f"{', '.join(header)}",
        )
    else:
        return None
    return whole_file(problem, count_rows(iter_table(file)))


@dataclass(frozen=True)
class ChoiceRow:
    """The cells of one row, already picked out of the source's columns."""

    qid: str
    stem: str
    options: tuple[str, ...]
    answer: str
    analysis: str = ""


def read_choice_csv(
    file: Path,
    required: tuple[str, ...],
    pick: Callable[[int, dict[str, str]], ChoiceRow],
    *,
    source: str,
    subject: Subject,
    split: str | None,
    columns: dict[str, str],
) -> Iterator[Found | Problem]:
    """The questions of one subject's CSV or Parquet file, after checking it has the ``required`` columns.

    ``pick(position, cells)`` picks a row's cells (``position`` counts data rows from 0); the
    ``qid`` it returns is the row's id within the file, here prefixed with
    ``<source>/<split>/<subject key>`` (an empty one stays empty, to be reported).
    ``columns`` names the source's column for ``stem``, ``answer`` and ``id``.
    """
    problem = header_problem(file, required)
    if problem is not None:
        yield problem
        return
    prefix = "/".join(p for p in (source, split, subject.key) if p)
    extra = {"split": split} if split else {}
    for position, (line, cells) in enumerate(iter_table(file)):
        if isinstance(cells, Problem):
            yield cells
            continue
        row = pick(position, cells)
        qid = f"{prefix}/{row.qid}" if row.qid else ""
        question = build_question(
            replace(row, qid=qid), source=source, subject=subject, columns=columns, file=file, line=line, extra=extra
        )
        yield located(question, file, line)


def build_question(
    row: ChoiceRow,
    *,
    source: str,
    subject: Subject,
    columns: dict[str, str],
    file: Path,
    line: int,
    extra: dict[str, Any],
) -> Question | Problem:
    """One single-choice question, or the Problem naming the column at fault.

    ``columns`` names the source's column for ``stem``, ``answer`` and ``id``.
    """

    def problem(role: str, message: str) -> Problem:
        return Problem(file, line, columns[role], message, record=row.qid or None, unit=unit_of(file))

    if not row.qid.strip():
        return problem("id", "empty id")
    if not row.stem.strip():
        return problem("stem", "empty question text")
    answer = row.answer.strip().upper()
    if not answer:
        return problem("answer", "empty answer; expected one option letter A, B, C or D")
    if answer not in LETTERS:
        return problem("answer", f"expected one option letter A, B, C or D, got {row.answer.strip()!r}")
    options = [Option(label=label, text=text.strip()) for label, text in zip(LETTERS, row.options, strict=True)]
    warnings = [w for w in [subject.warning] if w]
    empty = [o.label for o in options if not o.text]
    if empty:
        warnings.append(f"empty option text for {', '.join(empty)}")
    record_extra = {**subject.extra, **extra}
    if warnings:
        record_extra["warnings"] = warnings
    try:
        return Question(
            id=clean_id(row.qid),
            source=source,
            stage=subject.stage,
            subject=subject.zh,
            group=subject.categories[0] if subject.categories else None,
            type=QuestionType.SINGLE,
            stem=row.stem.strip(),
            options=options,
            answer=[answer],
            analysis=row.analysis.strip(),
            knowledge=subject.knowledge(),
            language=detect_language(row.stem),
            extra=record_extra,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        return Problem(
            file,
            line,
            ".".join(map(str, error["loc"])) or None,
            error["msg"],
            record=row.qid or None,
            unit=unit_of(file),
        )
