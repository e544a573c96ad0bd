"""Every score and detector the meta-evaluation compares, oriented so that higher means "more likely wrong".

One explicit name table (:data:`DETECTORS`); the models each needs are computed
once per run and shared (:class:`DetectionContext`). A detector that cannot run
(no encoder, no NLI model, no backend) is reported unavailable, never dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.protocols import NLIModel, SentenceEncoder
from reasoning_metrics.verify.aggregate import assess_solutions, step_score
from reasoning_metrics.verify.arithmetic import StepCheck, check_steps
from reasoning_metrics.verify.contradiction import CONTRADICTION_THRESHOLD, step_contradictions
from reasoning_metrics.verify.doubt import doubt_cues
from reasoning_metrics.verify.equations import equation_conflicts
from reasoning_metrics.verify.flags import SolutionAssessment
from reasoning_metrics.verify.judge import judge_solutions
from reasoning_metrics.verify.quantities import unsupported_operands
from reasoning_metrics.verify.roscoe_adapter import ChainInput, RoscoeDetail, roscoe_baseline
from runners.backends.base import Backend


class Unavailable(Exception):
    """The detector cannot run with what was given."""


@dataclass
class DetectorResult:
    """A detector's scores for every solution of a run."""

    name: str
    family: str
    """``roscoe`` (baseline scores) or ``k12eval`` (our detectors)."""
    orientation: str
    """How the score was oriented: what "higher" means in its own terms."""
    solution_scores: list[float | None]
    step_scores: list[list[float | None]]
    native: list[int] | None = None
    """The detector's own first-wrong-step predictions (-1 none), if it makes them."""
    unavailable: str | None = None


@dataclass
class DetectionContext:
    """The solutions of one run and the models given; shared, lazily computed inputs of the detectors."""

    solutions: Sequence[LabelledSolution]
    encoder: SentenceEncoder | None = None
    nli: NLIModel | None = None
    backend: Backend | None = None
    batch_size: int = 64

    @cached_property
    def roscoe(self) -> list[RoscoeDetail]:
        if self.encoder is None:
            raise Unavailable("needs a sentence encoder (--encoder)")
        chains = [ChainInput(s.problem, s.steps) for s in self.solutions]
        return roscoe_baseline(chains, self.encoder, self.nli, self.batch_size)

    @cached_property
    def checks(self) -> list[list[StepCheck]]:
        return [check_steps(s.steps) for s in self.solutions]

    @cached_property
    def contradictions(self) -> list[list[float]]:
        if self.nli is None:
            raise Unavailable("needs an NLI model (none is installable offline)")
        return step_contradictions([(s.problem, s.steps) for s in self.solutions], self.nli, self.batch_size)

    @cached_property
    def judged(self) -> list[int | None]:
        if self.backend is None:
            raise Unavailable("needs a judge backend (library: DetectionContext(backend=...))")
        verdicts = judge_solutions([(s.problem, s.steps) for s in self.solutions], self.backend)
        return [v.first_error for v in verdicts]

    @cached_property
    def assessments(self) -> list[SolutionAssessment]:
        roscoe = self.roscoe if self.encoder is not None else None
        contradictions = self.contradictions if self.nli is not None else None
        judged = self.judged if self.backend is not None else None
        return assess_solutions(self.solutions, roscoe=roscoe, judged=judged, nli=None, contradictions=contradictions)


def _roscoe(key: str, per_step: str) -> Callable[[DetectionContext], DetectorResult]:
    """A ROSCOE score (higher = better) negated; its per-step part oriented the same way."""

    def run(ctx: DetectionContext) -> DetectorResult:
        details = ctx.roscoe
        if any(d.scores.get(key) is None and key in d.unavailable for d in details):
            raise Unavailable(next(d.unavailable[key] for d in details if key in d.unavailable))
        solution = [None if d.scores.get(key) is None else -float(d.scores[key] or 0.0) for d in details]
        steps: list[list[float | None]] = []
        for d in details:
            if per_step == "alignment":
                steps.append([-a for a in d.step_alignment])
            elif per_step == "repetition":
                steps.append(list(d.step_repetition))
            else:
                steps.append(list(d.step_contradiction or []))
        return DetectorResult(key, "roscoe", f"-{key} (ROSCOE: higher is better)", solution, steps)

    return run


def _counts(
    name: str, orientation: str, per_step: Callable[[DetectionContext], list[list[float]]]
) -> Callable[[DetectionContext], DetectorResult]:
    """A detector whose step score is a count or weight of findings; it predicts the first step with any."""

    def run(ctx: DetectionContext) -> DetectorResult:
        steps = per_step(ctx)
        native = [next((i for i, v in enumerate(s) if v > 0), -1) for s in steps]
        solution: list[float | None] = [float(sum(s)) for s in steps]
        return DetectorResult(name, "k12eval", orientation, solution, [list(s) for s in steps], native)

    return run


def _arithmetic(ctx: DetectionContext) -> list[list[float]]:
    return [[float(len(c.false_claims)) for c in checks] for checks in ctx.checks]


def _equations(ctx: DetectionContext) -> list[list[float]]:
    return [[float(len(c)) for c in equation_conflicts(checks)] for checks in ctx.checks]


def _unsupported(ctx: DetectionContext) -> list[list[float]]:
    return [
        [float(len(u)) for u in unsupported_operands(s.problem, checks)]
        for s, checks in zip(ctx.solutions, ctx.checks, strict=True)
    ]


def _doubt(ctx: DetectionContext) -> list[list[float]]:
    return [[max((c.weight for c in doubt_cues(step)), default=0.0) for step in s.steps] for s in ctx.solutions]


def _contradiction(ctx: DetectionContext) -> DetectorResult:
    steps = ctx.contradictions
    native = [next((i for i, p in enumerate(s) if p >= CONTRADICTION_THRESHOLD), -1) for s in steps]
    solution: list[float | None] = [max(s, default=0.0) for s in steps]
    step_scores: list[list[float | None]] = [list(s) for s in steps]
    return DetectorResult("contradiction", "k12eval", "max P(contradiction) of a step", solution, step_scores, native)


def _judge(ctx: DetectionContext) -> DetectorResult:
    judged = ctx.judged
    solution: list[float | None] = [None if j is None else float(j >= 0) for j in judged]
    steps: list[list[float | None]] = [
        [float(i == j) for i in range(len(s.steps))] for s, j in zip(ctx.solutions, judged, strict=True)
    ]
    native = [-1 if j is None else j for j in judged]
    return DetectorResult("judge", "k12eval", "1 if the judge names a wrong step", solution, steps, native)


def _aggregate(ctx: DetectionContext) -> DetectorResult:
    assessments = ctx.assessments
    solution: list[float | None] = [a.score for a in assessments]
    steps: list[list[float | None]] = [[step_score(s) for s in a.steps] for a in assessments]
    native = [a.first_suspect for a in assessments]
    return DetectorResult("aggregate", "k12eval", "combined flag severity (docs/detectors.md)", solution, steps, native)


DETECTORS: dict[str, Callable[[DetectionContext], DetectorResult]] = {
    "roscoe.faithfulness": _roscoe("faithfulness", "alignment"),
    "roscoe.informativeness_step": _roscoe("informativeness_step", "alignment"),
    "roscoe.repetition_step": _roscoe("repetition_step", "repetition"),
    "roscoe.source_consistency": _roscoe("discourse_representation", "contradiction"),
    "roscoe.self_consistency": _roscoe("coherence_step_vs_step", "contradiction"),
    "arithmetic": _counts("arithmetic", "number of false calculations", _arithmetic),
    "equations": _counts("equations", "number of conflicting equations", _equations),
    "unsupported_numbers": _counts("unsupported_numbers", "number of operands from nowhere", _unsupported),
    "doubt": _counts("doubt", "weight of doubt words", _doubt),
    "contradiction": _contradiction,
    "judge": _judge,
    "aggregate": _aggregate,
}
"""Detector name -> how to run it. ``roscoe.*`` are the baseline scores."""


def run_detectors(ctx: DetectionContext, names: Sequence[str] | None = None) -> list[DetectorResult]:
    """Run the named detectors (all by default) on ``ctx``; unavailable ones come back marked so."""
    results = []
    for name in names or list(DETECTORS):
        if name not in DETECTORS:
            raise KeyError(name)
        try:
            result = DETECTORS[name](ctx)
            result.name = name
        except Unavailable as exc:
            n = len(ctx.solutions)
            result = DetectorResult(name, _family(name), "", [None] * n, [[] for _ in range(n)], None, str(exc))
        results.append(result)
    return results


def _family(name: str) -> str:
    return "roscoe" if name.startswith("roscoe.") else "k12eval"
