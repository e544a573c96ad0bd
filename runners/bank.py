"""A run's question bank: where it is, and its questions worded as the run asked them.

One rule for both ends. ``k12eval run`` loads its questions with :func:`load_bank`;
``score`` and ``report`` rebuild exactly those questions from ``run.json`` with
:func:`run_bank`: a released CK12 variant is read from its folder, a generated one
(``shuffled``, ``distractors``, ``options-N``) is made again from the original bank with
the run's seed, so the options, their letters and the gold answer are the ones the model saw.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kg.errors import InputError, Problem
from kg.importers import detect_format, load_questions
from kg.records import Question
from runners.options import RELEASED_VARIANTS
from runners.records import HEADER_FILE, RunHeader

VariantSource = Literal["original", "released", "generated"]


@dataclass
class Bank:
    """The questions of a bank in the order of the bank, worded as one variant."""

    questions: list[Question]
    format: str
    variant_source: VariantSource
    """``released``: CK12's own variant files; ``generated``: made here from a seed."""
    problems: list[Problem] = field(default_factory=list)
    """Records left out (with ``skip_invalid``)."""


def load_bank(
    path: Path,
    fmt: str | None,
    variant: str,
    *,
    seed: int,
    mapping: Path | None = None,
    skip_invalid: bool = False,
) -> Bank:
    """Every question under ``path`` as ``variant`` words it (the whole bank: filters come after)."""
    from runners.variants import make_variant

    name = fmt or detect_format(path, mapping)
    released = name == "ck12" and variant in RELEASED_VARIANTS and has_released(path, variant)
    imported = load_questions(
        path, name, variant=variant if released else "original", mapping=mapping, skip_invalid=skip_invalid
    )
    questions = imported.questions
    source: VariantSource = "released" if released and variant != "original" else "original"
    if variant != "original" and not released:
        questions = make_variant(questions, variant, seed=seed).questions
        source = "generated"
    return Bank(questions, name, source, list(imported.problems))


def in_scope(
    questions: Sequence[Question], selection: str, subjects: Sequence[str], types: Sequence[str]
) -> list[Question]:
    """The questions a run evaluates, in the bank's order: the named selection (:mod:`runners.selection`),
    then the subjects and types asked for (empty: all). ``--limit`` and shards come after, in the run."""
    from kg.records import QuestionType
    from runners.selection import select

    wanted_types = {QuestionType.parse(t) for t in types}
    return [
        q
        for q in select(questions, selection)
        if (not subjects or q.subject in subjects) and (not wanted_types or q.type in wanted_types)
    ]


def run_scope(questions: Sequence[Question], header: RunHeader) -> list[Question]:
    """The bank's questions in the scope ``header`` records (:func:`in_scope`; ``--limit`` and shards left
    out): what "n in bank" counts beside "n asked" in the report."""
    data = header.data
    subjects = data.get("subjects") or []
    types = data.get("types") or []
    return in_scope(questions, str(data.get("select") or header.selection), list(subjects), list(types))


def has_released(path: Path, variant: str) -> bool:
    """CK12's folder at ``path`` holds its released ``variant`` (``original`` is always there)."""
    from kg.importers.ck12 import VARIANT_DIRS

    if variant == "original":
        return True
    return path.is_dir() and (path / VARIANT_DIRS[variant]).is_dir()


def bank_fingerprint(questions: Sequence[Question]) -> str:
    """A hash of the questions' ids and content, in order: another bank, or an edited one, differs."""
    digest = hashlib.sha256()
    for q in questions:
        digest.update(q.model_dump_json().encode("utf-8", "surrogatepass") + b"\n")
    return digest.hexdigest()[:16]


def locate_bank(run_dir: Path, header: RunHeader, override: Path | None = None) -> Path | None:
    """The run's bank: ``override`` (``--data``) if given, else ``data.path`` as written, or beside the run.

    ``None`` when it is not found; a run moved with its bank beside it still finds it.
    """
    if override is not None:
        return override if override.exists() else None
    raw = header.data.get("path")
    if not isinstance(raw, str) or not raw:
        return None
    for candidate in (Path(raw), run_dir / raw, run_dir.parent / raw):
        if candidate.exists():
            return candidate
    return None


@dataclass
class RunBank:
    """The questions of a run's bank by id, as the run's variant worded them."""

    path: Path
    questions: dict[str, Question]
    fingerprint: str
    """Of the questions as found now: the run's ``bank`` differs when the bank was edited or replaced."""


def run_bank(run_dir: Path, header: RunHeader, override: Path | None = None, *, skip_invalid: bool = False) -> RunBank:
    """Rebuild the questions of the run in ``run_dir`` as it asked them.

    Raises :class:`InputError` naming ``run.json``'s ``data.path`` (or ``--data``) when the bank is not found.
    """
    path = locate_bank(run_dir, header, override)
    if path is None:
        where = f"--data {override}" if override is not None else f"{run_dir / HEADER_FILE}, field 'data.path'"
        raw = override if override is not None else header.data.get("path") or "(none)"
        raise InputError(f"{where}: question bank {raw} not found here; pass the question bank with --data")
    mapping = header.data.get("mapping")
    skip_invalid = skip_invalid or header.data.get("skip_invalid") is True  # the run skipped them: so do its readers
    bank = load_bank(
        path,
        header.data.get("format"),
        header.variant,
        seed=header.seed,
        mapping=Path(mapping) if isinstance(mapping, str) and mapping else None,
        skip_invalid=skip_invalid,
    )
    return RunBank(path, {q.id: q for q in bank.questions}, bank_fingerprint(bank.questions))
