"""A run's question bank: where it is, and its questions worded as the run asked them.

One rule for both ends. ``k12eval run`` loads its questions with :func:`load_bank`;
``score`` and ``report`` rebuild exactly those questions from ``run.json`` with
:func:`run_bank`: the split the run scored (:func:`choose_split`; a dev question is never in a
CMMLU run's bank), a released CK12 variant read from its folder, a generated one
(``shuffled``, ``distractors``, ``options-N``) made again from that split's questions with
the run's seed, so the options, their letters and the gold answer are the ones the model saw.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kg.errors import InputError, Problem, SettingError
from kg.importers import detect_format, load_questions
from kg.records import Question
from runners.options import RELEASED_VARIANTS
from runners.records import HEADER_FILE, RunHeader

log = logging.getLogger(__name__)

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
    split: str | None = None
    """The split these questions are (``all``: every split); ``None`` when the bank has no splits."""
    splits: dict[str, int] = field(default_factory=dict)
    """Questions per split in everything read, before the split was chosen (``{}``: no splits)."""


ALL_SPLITS = "all"
"""``--split all``: every split of the bank together."""


def choose_split(
    questions: Sequence[Question], asked: str | None, default: str | None
) -> tuple[list[Question], str | None]:
    """The questions of one split, and its name: ``asked`` (``--split``), else ``default`` (the benchmark's
    evaluation split); ``all`` keeps every split.

    A bank whose questions carry no split is kept whole (split ``None``) unless a split was asked for. A
    bank of one split other than ``default`` (a ``dev/`` folder pointed at) is that split, with a warning
    saying so; asking for a split the bank lacks, or defaulting to one it lacks while it has several, is an
    :class:`InputError` naming the splits it has: dev questions are never scored as test ones in silence.
    """
    splits = Counter(q.split for q in questions if q.split is not None)
    if asked == ALL_SPLITS:
        return list(questions), ALL_SPLITS
    wanted = asked or default
    if wanted is None or (not splits and asked is None):
        return list(questions), None
    if not splits:
        raise SettingError(
            "split", asked, "this bank's questions carry no split; leave it out to score them all", quoted=False
        )
    if asked is None and wanted not in splits and len(splits) == 1:
        (only,) = splits
        log.warning(
            "this bank holds only the %s split (%d questions), not %s, the benchmark's evaluation split: "
            "scoring %s (run.json records it; the split setting names the split to score)",
            only, splits[only], wanted, only,
        )  # fmt: skip
        wanted = only
    chosen = [q for q in questions if q.split == wanted]
    if not chosen:
        held = ", ".join(f"{name} ({count})" for name, count in splits.most_common())
        if asked:
            raise SettingError(
                "split", asked, f"not in this bank, which holds {held}; choose one (or {ALL_SPLITS})", quoted=False
            )
        raise InputError(
            lambda name: (
                f"the benchmark's evaluation split, {wanted}, is not in this bank: it holds {held}; "
                f"choose one with {name('split')} (or {name('split', ALL_SPLITS)})"
            )
        )
    return chosen, wanted


def load_bank(
    path: Path,
    fmt: str | None,
    variant: str,
    *,
    seed: int,
    split: str | None = None,
    default_split: str | None = None,
    mapping: Path | None = None,
    taxonomy: Path | None = None,
    skip_invalid: bool = False,
) -> Bank:
    """The questions of one split under ``path`` (:func:`choose_split` of ``split`` and ``default_split``) as
    ``variant`` words it (the whole split: filters come after); a generated variant draws its options from that
    split's questions only."""
    from runners.variants import make_variant

    name = fmt or detect_format(path, mapping)
    released = name == "ck12" and variant in RELEASED_VARIANTS and has_released(path, variant)
    imported = load_questions(
        path,
        name,
        variant=variant if released else "original",
        mapping=mapping,
        taxonomy=taxonomy,
        skip_invalid=skip_invalid,
    )
    splits = Counter(q.split for q in imported.questions if q.split is not None)
    questions, chosen = choose_split(imported.questions, split, default_split)
    source: VariantSource = "released" if released and variant != "original" else "original"
    if variant != "original" and not released:
        made = make_variant(questions, variant, seed=seed)
        _say_left_out(variant, len(questions), made.skipped)
        questions, source = made.questions, "generated"
    return Bank(questions, name, source, list(imported.problems), chosen, dict(splits.most_common()))


def _say_left_out(variant: str, asked: int, skipped: list[tuple[str, str]]) -> None:
    """Warn of the questions ``variant`` could not be made of (too few other options to draw), or refuse
    when none could: a variant never shrinks a bank in silence."""
    if not skipped:
        return
    qid, reason = skipped[0]
    if len(skipped) == asked:
        raise SettingError(
            "variant",
            variant,
            f"none of the {asked} question(s) could be made into it (e.g. {qid}: {reason}); a larger bank, or original",
        )
    log.warning("variant %s: %d of %d question(s) left out (e.g. %s: %s)", variant, len(skipped), asked, qid, reason)


def in_scope(
    questions: Sequence[Question],
    selection: str,
    subjects: Sequence[str],
    types: Sequence[str],
    task_prefixes: Sequence[str] = (),
    selected: Callable[[Question, str], bool] | None = None,
) -> list[Question]:
    """The questions a run evaluates, in the bank's order: the named selection (:mod:`runners.selection`),
    then the subjects (by any of their names, :func:`runners.subjects.filter_subjects`) and types asked for
    (empty: all). ``--limit`` and shards come after, in the run.

    ``selected(question, selection)`` says whether a question is in the selection when the caller knows it
    already (a report keeps questions without the texts the selection reads); default: the selection's rule."""
    from kg.records import QuestionType
    from runners.selection import select
    from runners.subjects import filter_subjects

    wanted_types = {QuestionType.parse(t) for t in types}
    select([], selection)  # an unknown name is refused whoever decides
    chosen = select(questions, selection) if selected is None else [q for q in questions if selected(q, selection)]
    chosen = filter_subjects(chosen, subjects, task_prefixes)
    return [q for q in chosen if not wanted_types or q.type in wanted_types]


def run_scope(
    questions: Sequence[Question], header: RunHeader, selected: Callable[[Question, str], bool] | None = None
) -> list[Question]:
    """The bank's questions in the scope ``header`` records (:func:`in_scope`; ``--limit`` and shards left
    out): what "n in bank" counts beside "n asked" in the report."""
    data = header.data
    subjects = data.get("subjects") or []
    types = data.get("types") or []
    from runners.protocol import protocol_for

    prefixes = protocol_for(str(data.get("format") or "")).task_prefixes
    selection = str(data.get("select") or header.selection)
    return in_scope(questions, selection, list(subjects), list(types), prefixes, selected=selected)


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
        if override is not None:
            raise SettingError("data", override, "question bank not found here; pass the question bank", quoted=False)
        raw = header.data.get("path") or "(none)"
        raise InputError(
            lambda name: (
                f"{run_dir / HEADER_FILE}, field 'data.path': question bank {raw} not found here; "
                f"pass the question bank with {name('data')}"
            )
        )
    return path


class BankStream:
    """The questions of a run's bank at ``path``, worded as the run asked them, one at a time.

    Only the split the run scored (``data.split``; a run recorded before splits were chosen scored them
    all). A bank read in its own wording (original, or CK12's released variant) is never held whole: a
    report over a million questions keeps only what it shows. A generated variant draws its options from
    the whole split, so that split is read whole first. ``fingerprint`` (:func:`bank_fingerprint`) is known
    once the stream has been read to its end.
    """

    def __init__(self, path: Path, header: RunHeader, *, skip_invalid: bool = False) -> None:
        self.path = path
        self.header = header
        self.skip_invalid = skip_invalid or header.data.get("skip_invalid") is True  # as the run skipped them
        self.fingerprint = ""

    def __iter__(self) -> Iterator[Question]:
        from kg.importers import iter_questions

        data, variant = self.header.data, self.header.variant
        raw, tax = data.get("mapping"), data.get("taxonomy")
        mapping = Path(raw) if isinstance(raw, str) and raw else None
        taxonomy = Path(tax) if isinstance(tax, str) and tax else None
        split = data.get("split", ALL_SPLITS)
        name = data.get("format") or detect_format(self.path, mapping)
        released = name == "ck12" and variant in RELEASED_VARIANTS and has_released(self.path, variant)
        found: Iterable[Question]
        if variant != "original" and not released:
            found = load_bank(
                self.path,
                name,
                variant,
                seed=self.header.seed,
                split=split if isinstance(split, str) else ALL_SPLITS,
                mapping=mapping,
                taxonomy=taxonomy,
                skip_invalid=self.skip_invalid,
            ).questions
        else:
            found = iter_questions(
                self.path,
                name,
                variant=variant,
                mapping=mapping,
                taxonomy=taxonomy,
                skip_invalid=self.skip_invalid,
                problems=[],
            )
            if isinstance(split, str) and split != ALL_SPLITS:
                found = (q for q in found if q.split == split)
        digest = hashlib.sha256()
        for q in found:
            digest.update(q.model_dump_json().encode("utf-8", "surrogatepass") + b"\n")
            yield q
        self.fingerprint = digest.hexdigest()[:16]
