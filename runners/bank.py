"""A run's question bank: where it is, and its questions worded as the run asked them.

One rule for both ends. ``k12eval run`` loads its questions with :func:`load_bank`;
``score`` and ``report`` rebuild exactly those questions from ``run.json`` with
:func:`run_bank`: a released CK12 variant is read from its folder, a generated one
(``shuffled``, ``distractors``, ``options-N``) is made again from the original bank with
the run's seed, so the options, their letters and the gold answer are the ones the model saw.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
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
    questions: Sequence[Question],
    selection: str,
    subjects: Sequence[str],
    types: Sequence[str],
    selected: Callable[[Question, str], bool] | None = None,
) -> list[Question]:
    """The questions a run evaluates, in the bank's order: the named selection (:mod:`runners.selection`),
    then the subjects and types asked for (empty: all). ``--limit`` and shards come after, in the run.

    ``selected(question, selection)`` says whether a question is in the selection when the caller knows it
    already (a report keeps questions without the texts the selection reads); default: the selection's rule."""
    from kg.records import QuestionType
    from runners.selection import select

    wanted_types = {QuestionType.parse(t) for t in types}
    select([], selection)  # an unknown name is refused whoever decides
    chosen = select(questions, selection) if selected is None else [q for q in questions if selected(q, selection)]
    return [
        q for q in chosen if (not subjects or q.subject in subjects) and (not wanted_types or q.type in wanted_types)
    ]


def run_scope(
    questions: Sequence[Question], header: RunHeader, selected: Callable[[Question, str], bool] | None = None
) -> list[Question]:
    """The bank's questions in the scope ``header`` records (:func:`in_scope`; ``--limit`` and shards left
    out): what "n in bank" counts beside "n asked" in the report."""
    data = header.data
    subjects = data.get("subjects") or []
    types = data.get("types") or []
    return in_scope(questions, str(data.get("select") or header.selection), list(subjects), list(types), selected)


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
    path = bank_path(run_dir, header, override)
    stream = BankStream(path, header, skip_invalid=skip_invalid)
    questions = {q.id: q for q in stream}
    return RunBank(path, questions, stream.fingerprint)


def bank_path(run_dir: Path, header: RunHeader, override: Path | None = None) -> Path:
    """:func:`locate_bank`, or the :class:`InputError` naming ``run.json``'s ``data.path`` (or ``--data``)."""
    path = locate_bank(run_dir, header, override)
    if path is None:
        where = f"--data {override}" if override is not None else f"{run_dir / HEADER_FILE}, field 'data.path'"
        raw = override if override is not None else header.data.get("path") or "(none)"
        raise InputError(f"{where}: question bank {raw} not found here; pass the question bank with --data")
    return path


class BankStream:
    """The questions of a run's bank at ``path``, worded as the run asked them, one at a time.

    A bank read in its own wording (original, or CK12's released variant) is never held whole: a report
    over a million questions keeps only what it shows. A generated variant draws its options from the
    whole bank, so that bank is read whole first. ``fingerprint`` (:func:`bank_fingerprint`) is known once
    the stream has been read to its end.
    """

    def __init__(self, path: Path, header: RunHeader, *, skip_invalid: bool = False) -> None:
        self.path = path
        self.header = header
        self.skip_invalid = skip_invalid or header.data.get("skip_invalid") is True  # as the run skipped them
        self.fingerprint = ""

    def __iter__(self) -> Iterator[Question]:
        from kg.importers import iter_questions

        data, variant = self.header.data, self.header.variant
        raw = data.get("mapping")
        mapping = Path(raw) if isinstance(raw, str) and raw else None
        name = data.get("format") or detect_format(self.path, mapping)
        released = name == "ck12" and variant in RELEASED_VARIANTS and has_released(self.path, variant)
        if variant != "original" and not released:
            bank = load_bank(
                self.path, name, variant, seed=self.header.seed, mapping=mapping, skip_invalid=self.skip_invalid
            )
            found: Iterable[Question] = bank.questions
        else:
            found = iter_questions(
                self.path, name, variant=variant, mapping=mapping, skip_invalid=self.skip_invalid, problems=[]
            )
        digest = hashlib.sha256()
        for q in found:
            digest.update(q.model_dump_json().encode("utf-8", "surrogatepass") + b"\n")
            yield q
        self.fingerprint = digest.hexdigest()[:16]
