"""Combine every detector into per-step flags, a solution score and a first-suspect step.

The rule (documented in docs/detectors.md, fixed a priori, not fitted to any data set):

* each finding is a :class:`~.flags.StepFlag` with a severity (:data:`SEVERITY`);
* a step's suspicion is ``1 - prod(1 - severity)`` over its flags;
* the solution score is ``1 - prod(1 - x)`` over step suspicions and solution-level
  flags, plus ``TIE_BREAK * (1 - Faithfulness-Step)`` when an encoder ran, so ROSCOE
  only orders solutions whose flags are equal;
* the first suspect is the earliest step whose suspicion reaches :data:`FLAG_THRESHOLD`
  (-1 when none does).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from reasoning_metrics.protocols import NLIModel, SentenceEncoder
from reasoning_metrics.verify.arithmetic import StepCheck, check_steps
from reasoning_metrics.verify.contradiction import CONTRADICTION_THRESHOLD, step_contradictions
from reasoning_metrics.verify.doubt import doubt_cues
from reasoning_metrics.verify.equations import equation_conflicts
from reasoning_metrics.verify.flags import FlagKind, SolutionAssessment, StepAssessment, StepFlag
from reasoning_metrics.verify.quantities import unsupported_operands, unused_given_numbers
from reasoning_metrics.verify.roscoe_adapter import ChainInput, RoscoeDetail, roscoe_baseline

FLAG_THRESHOLD = 0.5
"""A step whose suspicion reaches this is flagged; the earliest flagged step is the first suspect."""
TIE_BREAK = 0.01
SEVERITY = {
    FlagKind.ARITHMETIC: 0.9,
    FlagKind.EQUATION: 0.7,
    FlagKind.JUDGE: 0.8,
    FlagKind.UNSUPPORTED_NUMBER: 0.5,
    FlagKind.REPETITION: 0.5,
    FlagKind.UNUSED_GIVEN: 0.3,
    FlagKind.NO_FINAL_ANSWER: 0.3,
}
"""Severity of each kind of flag; doubt cues carry their own (:data:`.doubt.WEIGHTS`), contradictions
``CONTRADICTION_WEIGHT * P(contradiction)``."""
CONTRADICTION_WEIGHT = 0.8
REPEAT_SIMILARITY = 0.98
"""ROSCOE cos* to an earlier step at which a step counts as a repetition (1.0 = identical embedding)."""
_FINAL_ANSWER = re.compile(r"\\boxed|####|\banswer\b|\bfinal\b|答案|故选|选[A-DＡ-Ｄ]", re.IGNORECASE)


class Solution(Protocol):
    """What the aggregate reads of a solution."""

    @property
    def id(self) -> str: ...

    @property
    def problem(self) -> str: ...

    @property
    def steps(self) -> Sequence[str]: ...


def assess_solutions(
    solutions: Sequence[Solution],
    *,
    encoder: SentenceEncoder | None = None,
    nli: NLIModel | None = None,
    judged: Sequence[int | None] | None = None,
    roscoe: Sequence[RoscoeDetail] | None = None,
    contradictions: Sequence[Sequence[float]] | None = None,
    batch_size: int = 64,
) -> list[SolutionAssessment]:
    """Assess every solution with every detector that can run.

    ``judged`` is an LLM judge's first wrong step per solution (-1 none, ``None``
    unparsed), from :func:`.judge.judge_solutions`. ``roscoe`` and ``contradictions``
    (:func:`.contradiction.step_contradictions`) may be passed when already
    computed; otherwise they are computed when ``encoder`` / ``nli`` is given.
    """
    if roscoe is None and encoder is not None:
        roscoe = roscoe_baseline(
            [ChainInput(s.problem, s.steps) for s in solutions], encoder, None, batch_size
        )
    if contradictions is None and nli is not None:
        contradictions = step_contradictions([(s.problem, s.steps) for s in solutions], nli, batch_size)
    unavailable = {}
    if roscoe is None:
        unavailable["roscoe"] = "no sentence encoder given"
    if contradictions is None:
        unavailable["contradiction"] = "no NLI model given"
    if judged is None:
        unavailable["judge"] = "no judge backend given"
    out = []
    for k, solution in enumerate(solutions):
        out.append(
            assess_one(
                solution,
                roscoe=roscoe[k] if roscoe is not None else None,
                contradictions=contradictions[k] if contradictions is not None else None,
                judged=judged[k] if judged is not None else None,
                unavailable=unavailable,
            )
        )
    return out


def assess_one(
    solution: Solution,
    *,
    roscoe: RoscoeDetail | None = None,
    contradictions: Sequence[float] | None = None,
    judged: int | None = None,
    unavailable: dict[str, str] | None = None,
) -> SolutionAssessment:
    """Assess one solution from what has been computed for it (see the module doc for the rule)."""
    checks = check_steps(solution.steps)
    step_flags = _step_flags(solution.problem, checks, solution.steps)
    for i in _repeated_steps(solution.steps, roscoe):
        message = "repeats an earlier step"
        step_flags[i].append(
            StepFlag(kind=FlagKind.REPETITION, severity=SEVERITY[FlagKind.REPETITION], message=message)
        )
    if contradictions is not None:
        for i, p in enumerate(contradictions):
            if p >= CONTRADICTION_THRESHOLD:
                message = f"contradicts the question or an earlier step (P = {p:.2f})"
                step_flags[i].append(
                    StepFlag(kind=FlagKind.CONTRADICTION, severity=CONTRADICTION_WEIGHT * p, message=message)
                )
    if judged is not None and 0 <= judged < len(solution.steps):
        message = "the judge names this step as the first wrong one"
        step_flags[judged].append(
            StepFlag(kind=FlagKind.JUDGE, severity=SEVERITY[FlagKind.JUDGE], message=message)
        )
    solution_flags = _solution_flags(solution.problem, checks, solution.steps)
    steps = [
        StepAssessment(
            index=i,
            suspicion=_noisy_or(f.severity for f in flags),
            flags=flags,
            alignment=roscoe.step_alignment[i] if roscoe is not None and roscoe.step_alignment else None,
            contradiction=contradictions[i] if contradictions is not None else None,
        )
        for i, flags in enumerate(step_flags)
    ]
    score = _noisy_or([s.suspicion for s in steps] + [f.severity for f in solution_flags])
    faithfulness = roscoe.scores.get("faithfulness") if roscoe is not None else None
    if faithfulness is not None:
        score += TIE_BREAK * (1 - faithfulness)
    first = next((s.index for s in steps if s.suspicion >= FLAG_THRESHOLD), -1)
    ran = ["arithmetic", "equations", "quantities", "doubt", "completeness"]
    ran += [
        name for name, done in (("roscoe", roscoe), ("contradiction", contradictions)) if done is not None
    ]
    ran += ["judge"] if judged is not None else []
    return SolutionAssessment(
        id=solution.id,
        score=score,
        first_suspect=first,
        steps=steps,
        flags=solution_flags,
        detectors=ran,
        unavailable={k: v for k, v in (unavailable or {}).items() if k not in ran},
    )


def _repeated_steps(steps: Sequence[str], roscoe: RoscoeDetail | None) -> list[int]:
    """Steps equal to an earlier one once case, spaces and punctuation are ignored, or (with an encoder)
    whose ROSCOE repetition similarity reaches :data:`REPEAT_SIMILARITY`."""
    seen: set[str] = set()
    repeated = []
    for i, step in enumerate(steps):
        key = re.sub(r"[\W_]+", "", step.lower())
        similar = (
            roscoe is not None
            and i < len(roscoe.step_repetition)
            and roscoe.step_repetition[i] >= REPEAT_SIMILARITY
        )
        if (key and key in seen) or (i > 0 and similar):
            repeated.append(i)
        seen.add(key)
    return repeated


def step_score(step: StepAssessment) -> float:
    """A step's suspicion with the same ROSCOE tie-breaker as the solution score (for step-level AUROC)."""
    return step.suspicion + (TIE_BREAK * (1 - step.alignment) if step.alignment is not None else 0.0)


def _noisy_or(severities: Iterable[float]) -> float:
    product = 1.0
    for severity in severities:
        product *= 1 - severity
    return 1 - product


def _step_flags(problem: str, checks: Sequence[StepCheck], steps: Sequence[str]) -> list[list[StepFlag]]:
    flags: list[list[StepFlag]] = [[] for _ in checks]
    for i, check in enumerate(checks):
        for claim in check.false_claims:
            actual = f"{claim.left_value:.6g} vs {claim.right_value:.6g}"
            flags[i].append(
                StepFlag(
                    kind=FlagKind.ARITHMETIC,
                    severity=SEVERITY[FlagKind.ARITHMETIC],
                    message=f"{claim.expression} does not hold ({actual})",
                    evidence=claim.expression,
                )
            )
    for i, conflicts in enumerate(equation_conflicts(checks)):
        for conflict in conflicts:
            flags[i].append(
                StepFlag(
                    kind=FlagKind.EQUATION,
                    severity=SEVERITY[FlagKind.EQUATION],
                    message=conflict.message,
                    evidence=conflict.expression,
                )
            )
    for i, unsupported in enumerate(unsupported_operands(problem, checks)):
        for operand in unsupported:
            flags[i].append(
                StepFlag(
                    kind=FlagKind.UNSUPPORTED_NUMBER,
                    severity=SEVERITY[FlagKind.UNSUPPORTED_NUMBER],
                    message=f"{operand.value:g} in {operand.expression} is new: not given, not derived",
                    evidence=operand.expression,
                )
            )
    for i, step in enumerate(steps):
        for cue in doubt_cues(step):
            message = f"{cue.kind.value.replace('_', ' ')}: {cue.text!r}"
            flags[i].append(
                StepFlag(kind=FlagKind.DOUBT, severity=cue.weight, message=message, evidence=cue.text)
            )
    return flags


def _solution_flags(problem: str, checks: Sequence[StepCheck], steps: Sequence[str]) -> list[StepFlag]:
    flags = []
    unused = unused_given_numbers(problem, checks)
    if unused:
        listed = ", ".join(f"{v:g}" for v in unused[:5])
        flags.append(
            StepFlag(
                kind=FlagKind.UNUSED_GIVEN,
                severity=SEVERITY[FlagKind.UNUSED_GIVEN],
                message=f"given number(s) never used: {listed}",
            )
        )
    if steps and not _FINAL_ANSWER.search(steps[-1]):
        flags.append(
            StepFlag(
                kind=FlagKind.NO_FINAL_ANSWER,
                severity=SEVERITY[FlagKind.NO_FINAL_ANSWER],
                message="the last step states no final answer",
            )
        )
    return flags


def is_finite(value: float | None) -> bool:
    """Whether ``value`` is a real, finite number."""
    return value is not None and math.isfinite(value)
