"""Step features of a labelled set and the learned combiner's predictions on it.

Features come from the aggregate's own assessments (its run of every registered detector), the
arithmetic checks and the ROSCOE scores of a :class:`~.detectors.DetectionContext`, so the combiner
sees exactly what ``aggregate`` sees. This module takes those as plain sequences (the context's
module imports this one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kg.records import detect_language
from reasoning_metrics.combine.features import graded_correct, graded_wrong, step_features
from reasoning_metrics.combine.fit import TrainingSet
from reasoning_metrics.combine.model import Combiner
from reasoning_metrics.guard import Outcome
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.halves import split_key
from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.flags import SolutionAssessment
from reasoning_metrics.verify.rules.arithmetic import StepCheck


def set_features(
    solutions: Sequence[LabelledSolution],
    assessments: Sequence[SolutionAssessment],
    checks: Sequence[Outcome[list[StepCheck]]],
    roscoe: Sequence[ChainScores] | None = None,
) -> list[list[dict[str, float]]]:
    """Per solution, per step: every feature (ROSCOE's only when ``roscoe`` is given); the teacher's
    analysis is read from ``meta["analysis"]`` where the set gives one (``ck12-labels`` does)."""
    return [
        step_features(
            s.steps,
            a,
            c.value,
            roscoe[k] if roscoe is not None else None,
            graded_correct(s.meta),
            source=s.problem,
            analysis=_analysis(s),
        )
        for k, (s, a, c) in enumerate(zip(solutions, assessments, checks, strict=True))
    ]


def solution_language(solution: LabelledSolution) -> str:
    """The solution's language: as its record says, else read from its question and steps."""
    return solution.lang or detect_language(" ".join([solution.problem, *solution.steps]))


def _analysis(solution: LabelledSolution) -> str | None:
    analysis = solution.meta.get("analysis")
    return analysis if isinstance(analysis, str) else None


def training_set(
    name: str,
    solutions: Sequence[LabelledSolution],
    assessments: Sequence[SolutionAssessment],
    rows: Sequence[list[dict[str, float]]],
    info: dict[str, Any] | None = None,
) -> TrainingSet:
    """``solutions`` as combiner training data (those the detectors could not check are left out)."""
    keep = [k for k, a in enumerate(assessments) if a.status == "checked"]
    return TrainingSet(
        name,
        [solutions[k].target for k in keep],
        [split_key(solutions[k]) for k in keep],
        [rows[k] for k in keep],
        dict(info or {}),
    )


@dataclass
class Predictions:
    """A combiner's scores on a set, shaped as a meta-evaluation detector's."""

    solution_scores: list[float | None] = field(default_factory=list)
    step_scores: list[list[float | None]] = field(default_factory=list)
    first_suspects: list[int | None] = field(default_factory=list)
    not_checked: dict[int, str] = field(default_factory=dict)


def predict(
    combiner: Combiner,
    assessments: Sequence[SolutionAssessment],
    rows: Sequence[list[dict[str, float]]],
    languages: Sequence[str | None] | None = None,
) -> Predictions:
    """Step probabilities, solution score (largest step probability) and first suspect of every solution,
    each by the combiner for its language (``languages``, one per solution; :meth:`Combiner.for_language`);
    a solution the detectors did not check has none (as for ``aggregate``)."""
    out = Predictions()
    chosen = [combiner.for_language(lg) for lg in languages] if languages is not None else [combiner] * len(rows)
    for k, (a, r, own) in enumerate(zip(assessments, rows, chosen, strict=True)):
        if a.status != "checked":
            out.not_checked[k] = a.flags[0].message
            out.solution_scores.append(None)
            out.step_scores.append([None] * len(r))
            out.first_suspects.append(None)
            continue
        p = own.step_probabilities(r)
        out.solution_scores.append(max(p, default=0.0))
        out.step_scores.append(list(p))
        out.first_suspects.append(own.first_suspect(p, graded_wrong(r)))
    return out
