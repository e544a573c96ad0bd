"""Combine every detector into per-step flags, a solution score and a first-suspect step.

The rule (documented in docs/detectors.md; no weight is fitted to any data set, and all but the
fallback were fixed before any measurement):

* each registered detector (:data:`.registry.DETECTORS`) that can run adds its findings, each a
  :class:`~.flags.StepFlag` with a severity (:data:`.flags.SEVERITY`);
* a step's suspicion is ``1 - prod(1 - severity)`` over its flags;
* the solution score is ``1 - prod(1 - x)`` over step suspicions and solution-level
  flags, plus ``TIE_BREAK * (1 - Faithfulness-Step)`` when an encoder ran, so ROSCOE
  only orders solutions whose flags are equal;
* the first suspect is the earliest step whose suspicion reaches :data:`FLAG_THRESHOLD`;
* when none does but one finding reaches :data:`LOCATE_AT` (no final answer, a count that is not
  whole, a doubt cue; not an unused given number, which says something is missing rather than
  wrong, and not weak cues added up), the solution is suspect without a suspect step: the first
  suspect is then the earliest step with any finding, else the first step that calculates
  something (where the errors of flagged solutions concentrate: measured in docs/detectors.md);
* otherwise -1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any, Literal

from reasoning_metrics.guard import CHAIN_BUDGET_S, NotChecked, Outcome, checking, left_of
from reasoning_metrics.protocols import NLIModel, SentenceEncoder
from reasoning_metrics.reasons import reason
from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.detector import Evidence, Reference
from reasoning_metrics.verify.findings import findings
from reasoning_metrics.verify.flags import SEVERITY, FlagKind, Solution, SolutionAssessment, StepAssessment, StepFlag
from reasoning_metrics.verify.rules.arithmetic import StepCheck, check_steps
from reasoning_metrics.verify.rules.baseline import roscoe_scores
from reasoning_metrics.verify.rules.contradiction import step_contradictions

FLAG_THRESHOLD = 0.5
"""A step whose suspicion reaches this is flagged; the earliest flagged step is the first suspect."""
AGGREGATE_METRICS = ("faithfulness_step", "repetition_step")
"""The ROSCOE scores the rule reads (their per-step detail: alignment and repetition of each step)."""
LOCATE_AT = 0.25
"""A solution with one finding this severe (unused given numbers aside) and no step reaching
:data:`FLAG_THRESHOLD` gets a first suspect by the fallback rule; approximation cues (0.2) do not."""
NOT_LOCATING = frozenset({FlagKind.UNUSED_GIVEN})
"""Findings that never make a solution suspect enough for the fallback rule on their own."""
NO_REFERENCE = reason("no_teacher_analysis")


def without_reference() -> dict[str, str]:
    """Why each detector that needs a reference did not run, for a solution without one."""
    from reasoning_metrics.verify.registry import DETECTORS

    return {name: NO_REFERENCE for name, detector in DETECTORS.items() if "reference" in detector.needs}


TIE_BREAK = 0.01
"""Weight of (1 - Faithfulness-Step) in the solution score: below the smallest flag severity."""
__all__ = [
    "FLAG_THRESHOLD",
    "LOCATE_AT",
    "NO_REFERENCE",
    "SEVERITY",
    "TIE_BREAK",
    "assess_one",
    "assess_solutions",
    "checks_of",
    "not_checked",
    "step_score",
    "without_reference",
]


def assess_solutions(
    solutions: Sequence[Solution],
    *,
    encoder: SentenceEncoder | None = None,
    nli: NLIModel | None = None,
    judged: Sequence[int | None] | None = None,
    roscoe: Sequence[ChainScores] | None = None,
    contradictions: Sequence[Sequence[float]] | None = None,
    references: Sequence[Reference | None] | None = None,
    prm: Sequence[Sequence[float] | None] | None = None,
    rollouts: Sequence[Sequence[float | None] | None] | None = None,
    batch_size: int = 64,
    budget_s: float | None = CHAIN_BUDGET_S,
    models: Mapping[str, str] | None = None,
    checks: Sequence[Outcome[list[StepCheck]]] | None = None,
) -> list[SolutionAssessment]:
    """Assess every solution with every detector that can run.

    ``judged`` is an LLM judge's first wrong step per solution (-1 none, ``None``
    unparsed), from :func:`.rules.judge.judge_solutions`. ``roscoe`` (:func:`.rules.baseline.roscoe_scores`)
    and ``contradictions`` (:func:`.rules.contradiction.step_contradictions`) may be passed when already
    computed; otherwise they are computed when ``encoder`` / ``nli`` is given. ``references`` are the gold answers and teacher's analyses,
    per solution (``None`` where there is none). ``prm`` is a process
    reward model's P(correct) per step (:mod:`.rules.prm`), ``rollouts`` the share of continuations reaching
    the gold answer per step (:mod:`.rules.rollouts`); a solution's ``None`` there means the model could
    not score it (the detector is then unavailable for it alone). Each solution gets
    ``budget_s`` seconds of the CPU detectors (see :func:`assess_one`); ``models`` names the model behind
    ``judged`` and ``prm`` in their flags. ``checks``: each solution's :func:`checks_of`, where the caller
    computed them already (computed here otherwise).
    """
    if roscoe is None and encoder is not None:
        roscoe = roscoe_scores(solutions, encoder, metrics=AGGREGATE_METRICS, batch_size=batch_size)
    if contradictions is None and nli is not None:
        contradictions = step_contradictions([(s.problem, s.steps) for s in solutions], nli, batch_size)
    unavailable = {}
    if roscoe is None:
        unavailable["roscoe"] = reason("not_given", "encoder")
    if contradictions is None:
        unavailable["contradiction"] = reason("not_given", "nli")
    if judged is None:
        unavailable["judge"] = reason("not_given", "judge")
    if prm is None:
        unavailable["prm"] = reason("not_given", "prm")
    if rollouts is None:
        unavailable["rollouts"] = reason("not_given", "rollouts")
    out = []
    for k, solution in enumerate(solutions):
        reference = references[k] if references is not None else None
        mine = dict(unavailable)
        if prm is not None and prm[k] is None:
            mine["prm"] = reason("prm_too_long")
        if rollouts is not None and rollouts[k] is None:
            mine["rollouts"] = reason("no_gold")
        out.append(
            assess_one(
                solution,
                roscoe=roscoe[k] if roscoe is not None else None,
                contradictions=contradictions[k] if contradictions is not None else None,
                judged=judged[k] if judged is not None else None,
                reference=reference,
                prm=prm[k] if prm is not None else None,
                rollouts=rollouts[k] if rollouts is not None else None,
                unavailable=mine if reference is not None else {**mine, **without_reference()},
                budget_s=budget_s,
                models=models,
                checks=checks[k] if checks is not None else None,
            )
        )
    return out


def checks_of(solution: Solution, budget_s: float | None = CHAIN_BUDGET_S) -> Outcome[list[StepCheck]]:
    """The arithmetic checks of a solution's steps (:func:`~.rules.arithmetic.check_steps`) under its time budget.

    Their one home: computed once per solution and read by the aggregate (:func:`assess_one`), the detectors
    meta-eval measures alone and the learned combiner's features, in ``score`` as in ``meta-eval``."""
    return checking(partial(check_steps, solution.steps, solution.problem), budget_s)


def assess_one(
    solution: Solution,
    *,
    roscoe: ChainScores | None = None,
    contradictions: Sequence[float] | None = None,
    judged: int | None = None,
    reference: Reference | None = None,
    prm: Sequence[float] | None = None,
    rollouts: Sequence[float | None] | None = None,
    unavailable: dict[str, str] | None = None,
    budget_s: float | None = CHAIN_BUDGET_S,
    models: Mapping[str, str] | None = None,
    checks: Outcome[list[StepCheck]] | None = None,
) -> SolutionAssessment:
    """Assess one solution from what has been computed for it (see the module doc for the rule).

    ``models``: which model made a model-made input (``judged``, ``prm``), named in the flags raised on it.
    ``checks``: the solution's :func:`checks_of` when the caller has them (computed here otherwise).

    Never raises: a solution the detectors fail on, or cannot finish within ``budget_s`` seconds
    (``None``: no limit; the checks and the detectors share it), comes back with ``status`` ``error`` or
    ``too_long`` (see :func:`not_checked`).
    """
    checked = checks if checks is not None else checks_of(solution, budget_s)
    if checked.value is None:
        assert checked.status is not None
        return not_checked(solution, checked.status, checked.reason)
    step_checks = checked.value
    evidence = {
        "roscoe": roscoe,
        "contradictions": contradictions,
        "judged": judged,
        "reference": reference,
        "prm": prm,
        "rollouts": rollouts,
        "models": dict(models or {}),
    }
    outcome = checking(lambda: _assess(solution, step_checks, evidence, unavailable), left_of(budget_s, checked))
    if outcome.value is not None:
        return outcome.value
    assert outcome.status is not None
    return not_checked(solution, outcome.status, outcome.reason)


NOT_CHECKED_ZH: dict[str, str] = {
    "error": "检测器检查这份解答时出错，未检查",
    "too_long": "解答太长，超出检查的时间预算，未检查",
}
"""Why a solution was not checked (:data:`~.guard.NotChecked`), in Chinese."""


def not_checked(solution: Solution, status: NotChecked, reason: str) -> SolutionAssessment:
    """The record of a solution the detectors did not check: no flags, score 0, no suspect step."""
    return SolutionAssessment(
        id=solution.id,
        score=0.0,
        first_suspect=-1,
        steps=[StepAssessment(index=i, suspicion=0.0) for i in range(len(solution.steps))],
        flags=[StepFlag(kind=FlagKind.NOT_CHECKED, severity=0.0, message=reason, message_zh=NOT_CHECKED_ZH[status])],
        status=status,
    )


def _assess(
    solution: Solution, checks: list[StepCheck], given: dict[str, Any], unavailable: dict[str, str] | None
) -> SolutionAssessment:
    """``given``: the optional parts of the :class:`~.detector.Evidence` (ROSCOE, contradictions, judge, reference, PRM, rollouts)."""
    roscoe: ChainScores | None = given["roscoe"]
    contradictions: Sequence[float] | None = given["contradictions"]
    found = findings(Evidence(solution.problem, solution.steps, checks, **given))
    solution_flags = found.solution
    steps = [
        StepAssessment(
            index=i,
            suspicion=_noisy_or(f.severity for f in flags),
            flags=flags,
            alignment=roscoe.steps[i].source_similarity if roscoe is not None and i < len(roscoe.steps) else None,
            contradiction=contradictions[i] if contradictions is not None else None,
        )
        for i, flags in enumerate(found.steps)
    ]
    score = _noisy_or([s.suspicion for s in steps] + [f.severity for f in solution_flags])
    faithfulness = roscoe.scores.get("faithfulness_step") if roscoe is not None else None
    if faithfulness is not None:
        score += TIE_BREAK * (1 - faithfulness)
    first, rule = _first_suspect(steps, checks, solution_flags)
    ran = found.ran
    return SolutionAssessment(
        id=solution.id,
        score=score,
        first_suspect=first,
        suspect_rule=rule,
        steps=steps,
        flags=solution_flags,
        detectors=ran,
        unavailable={k: v for k, v in (unavailable or {}).items() if k not in ran},
    )


def _first_suspect(
    steps: Sequence[StepAssessment], checks: Sequence[StepCheck], solution_flags: Sequence[StepFlag]
) -> tuple[int, Literal["flag", "fallback", "none"]]:
    """The step to look at first and the rule that chose it (see the module doc)."""
    flagged = next((s.index for s in steps if s.suspicion >= FLAG_THRESHOLD), None)
    if flagged is not None:
        return flagged, "flag"
    findings = [f for s in steps for f in s.flags] + list(solution_flags)
    if not any(f.severity >= LOCATE_AT and f.kind not in NOT_LOCATING for f in findings):
        return -1, "none"
    with_finding = next((s.index for s in steps if s.flags), None)
    if with_finding is not None:
        return with_finding, "fallback"
    calculating = next((i for i, check in enumerate(checks) if check.calculates), 0)
    return calculating, "fallback"


def step_score(step: StepAssessment) -> float:
    """A step's suspicion with the same ROSCOE tie-breaker as the solution score (for step-level AUROC)."""
    return step.suspicion + (TIE_BREAK * (1 - step.alignment) if step.alignment is not None else 0.0)


def _noisy_or(severities: Iterable[float]) -> float:
    product = 1.0
    for severity in severities:
        product *= 1 - severity
    return 1 - product
