"""The step scores of a run, as the report shows them: read from ``RUN_DIR/scores.jsonl``.

The file is written by ``k12eval score`` and read here with the writer's own record model,
:class:`reasoning_metrics.score_store.ScoreRecord` (``model_validate``), through the score store's
line reader (:func:`reasoning_metrics.score_store.read_score_lines`): one format, one torn-line rule.
A record becomes a :class:`QuestionScores`: each step with the source sentence and reference
step it matched (the scorer writes them as indices into ``source_steps`` and ``reference_steps``),
its largest contradiction, the scorer's warnings and the detectors' findings and suspicion, and, when
``score --combiner`` ran, the learned combiner's probability that the step is the first wrong one.
The file's header (``scores.json``) names the combiner, if any (:func:`load_score_header`).

The file is optional: a run that was never scored has no step scores, and the report says so.
A line that is not a score record is an :class:`~kg.errors.InputError` naming the file, the line
and the field.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kg.errors import InputError

if TYPE_CHECKING:
    from reasoning_metrics.score_store import ScoreConfig, ScoreRecord
    from reasoning_metrics.verify.flags import SolutionAssessment, StepFlag


@dataclass(frozen=True)
class Match:
    """The sentence a step was matched to (a source sentence or a reference step)."""

    index: int | None
    text: str
    score: float | None
    """Similarity, or contradiction probability for :attr:`StepScore.max_contradiction`."""


@dataclass(frozen=True)
class Finding:
    """One detector's reason to suspect a step (or a whole solution)."""

    kind: str
    """e.g. ``arithmetic``, ``contradiction``, ``doubt`` (``reasoning_metrics.verify.flags.FlagKind``)."""
    message: str
    """One line for a reader, quoting model text: untrusted, escape it."""
    severity: float | None = None
    evidence: str | None = None
    message_zh: str | None = None
    """``message`` in Chinese (``None``: the detector wrote none, or the score file is older)."""


@dataclass(frozen=True)
class StepScore:
    """One step of the model's reasoning with what the scorer and detectors found."""

    index: int
    text: str
    flags: tuple[str, ...] = ()
    """Names of the scorer's per-step warnings (``unsupported``, ``contradicts_source``...)."""
    best_source: Match | None = None
    best_reference: Match | None = None
    max_contradiction: Match | None = None
    values: dict[str, float] = field(default_factory=dict)
    """The step's other numbers worth showing: its largest contradiction with an earlier step, its
    similarity to the most similar earlier step."""
    findings: tuple[Finding, ...] = ()
    """The detectors' flags on this step, with their messages."""
    suspicion: float | None = None
    """The detectors' combined suspicion of the step (0-1), if they ran."""
    probability: float | None = None
    """The learned combiner's P(this step is the first wrong one | no earlier step was), if one ran (a hazard:
    several steps can be near 1; the page turns them into each step's chance of being the first error)."""


@dataclass(frozen=True)
class Combined:
    """The learned combiner's verdict on a solution (``reasoning_metrics.combine.apply.CombinedVerdict``)."""

    first_suspect: int | None
    """The combiner's first suspect (for an answer graded wrong, its likeliest first error; else, when a step
    reaches ``threshold``, the step ``locate`` names); ``None`` when it names none."""
    threshold: float
    locate: str = "earliest"
    """``earliest`` (the earliest step at or above ``threshold``) or ``likeliest`` (the likeliest first error)."""


@dataclass(frozen=True)
class QuestionScores:
    """The scores of one solution."""

    question_id: str
    scores: dict[str, float | None]
    unavailable: dict[str, str] = field(default_factory=dict)
    steps: tuple[StepScore, ...] = ()
    reference_steps: tuple[str, ...] = ()
    first_suspect: int | None = None
    suspect_rule: str | None = None
    """How the detectors chose ``first_suspect``: ``flag`` (a flagged step) or ``fallback`` (no step is
    flagged but the solution is suspect: the first step with a finding, else the first calculation)."""
    solution_findings: tuple[Finding, ...] = ()
    """Detector flags of the whole solution (unused given numbers, no final answer)."""
    detectors_unavailable: dict[str, str] = field(default_factory=dict)
    """Detector -> why it did not run (no NLI model...); empty when the detectors did not run at all."""
    combined: Combined | None = None
    """The learned combiner's first suspect and threshold (its per-step probabilities are on the steps);
    ``None`` without a combiner, or when it could not run on this solution."""
    calibrated: dict[str, float] = field(default_factory=dict)
    """Metric -> its calibrated reading (:mod:`reasoning_metrics.scales`), as ``k12eval score`` wrote it with
    the floor its header names; only the metrics that have one (none in files scored before it was written)."""
    encoder: str | None = None
    """The sentence encoder of the solution's similarity scores (the roles' own), ``None`` without one."""
    lang: str | None = None
    """The language the chain was scored as."""


def load_score_header(run_dir: Path) -> ScoreConfig | None:
    """How ``RUN_DIR/scores.jsonl`` was made (its header ``scores.json``); ``None`` when there is none.

    A header that is not one is an :class:`~kg.errors.InputError` naming the file and the field.
    """
    from reasoning_metrics.score_store import SCORES_FILE, read_score_header

    return read_score_header(Path(run_dir) / SCORES_FILE)


def load_scores(run_dir: Path) -> dict[str, QuestionScores]:
    """Scores by question id; empty when the run has no ``scores.jsonl``.

    A later line for the same question replaces an earlier one (a re-score appends); a torn last
    line (a scorer still running, or killed) is not a record yet.
    """
    from pydantic import ValidationError

    from reasoning_metrics.score_store import SCORES_FILE, ScoreRecord, read_score_lines

    path = Path(run_dir) / SCORES_FILE  # absent: no scores; a link, FIFO or device: refused by name (read_score_lines)
    result: dict[str, QuestionScores] = {}
    for number, obj in read_score_lines(path, skip_torn=True):
        try:
            record = ScoreRecord.model_validate(obj)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "(line)"
            raise InputError(f"{path}, line {number}, field '{where}': {error['msg']}") from None
        result[record.question_id] = question_scores(record)
    return result


def question_scores(record: ScoreRecord) -> QuestionScores:
    """What the report shows of one score record."""
    sources, references = tuple(record.source_steps), tuple(record.reference_steps)
    steps = tuple(
        StepScore(
            index=step.index,
            text=step.text,
            flags=tuple(step.flags),
            best_source=_match(step.source_index, step.source_similarity, sources),
            best_reference=_match(step.reference_index, step.reference_similarity, references),
            max_contradiction=_match(step.contradiction_index, step.contradiction, sources),
            values={
                name: value
                for name, value in (
                    ("earlier_contradiction", _finite(step.earlier_contradiction)),
                    ("repeat_similarity", _finite(step.repeat_similarity)),
                )
                if value is not None
            },
        )
        for step in record.steps
    )
    steps = _with_probabilities(steps, record.combined.step_probabilities if record.combined else None)
    assessment = record.assessment
    suspect = record.first_suspect
    if suspect is None and assessment is not None:
        suspect = assessment.first_suspect
    return QuestionScores(
        question_id=record.question_id,
        scores={name: _finite(value) for name, value in record.scores.items()},
        unavailable=dict(record.unavailable),
        steps=_with_assessment(steps, assessment),
        reference_steps=references,
        first_suspect=suspect if suspect is not None and suspect >= 0 else None,
        suspect_rule=assessment.suspect_rule if assessment is not None else None,
        solution_findings=_findings(assessment.flags) if assessment is not None else (),
        detectors_unavailable=dict(assessment.unavailable) if assessment is not None else {},
        combined=_combined(record),
        calibrated=dict(record.calibrated),  # as scoring wrote them, with the floor its header names
        encoder=record.models.get("encoder"),
        lang=record.lang,
    )


def _combined(record: ScoreRecord) -> Combined | None:
    verdict = record.combined
    if verdict is None:
        return None
    first = verdict.first_suspect if 0 <= verdict.first_suspect < len(record.steps) else None
    return Combined(first_suspect=first, threshold=verdict.threshold, locate=verdict.locate)


def _with_probabilities(steps: tuple[StepScore, ...], probabilities: Sequence[float] | None) -> tuple[StepScore, ...]:
    """The steps with the combiner's probability of the same position (it scores ``record.steps`` in order)."""
    if probabilities is None:
        return steps
    return tuple(
        replace(step, probability=_finite(probabilities[i])) if i < len(probabilities) else step
        for i, step in enumerate(steps)
    )


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _match(index: int | None, score: float | None, texts: tuple[str, ...]) -> Match | None:
    """The sentence a step matched, written by the scorer as an index into ``texts`` and a number."""
    score = _finite(score)
    if score is None:
        return None
    text = texts[index] if index is not None and 0 <= index < len(texts) else ""
    return Match(index=index, text=text, score=score)


def _findings(flags: Sequence[StepFlag]) -> tuple[Finding, ...]:
    return tuple(
        Finding(kind=str(f.kind), message=f.message, severity=f.severity, evidence=f.evidence, message_zh=f.message_zh)
        for f in flags
    )


def _with_assessment(steps: tuple[StepScore, ...], assessment: SolutionAssessment | None) -> tuple[StepScore, ...]:
    """The steps with the detectors' flags and suspicion of the same index added."""
    if assessment is None:
        return steps
    by_index = {entry.index: entry for entry in assessment.steps}
    out = []
    for step in steps:
        entry = by_index.get(step.index)
        if entry is None:
            out.append(step)
        else:
            out.append(replace(step, findings=step.findings + _findings(entry.flags), suspicion=entry.suspicion))
    return tuple(out)
