"""Every detector's findings on one solution as typed flags, with the severities of the aggregate rule."""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg.records import detect_language
from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.arithmetic import StepCheck
from reasoning_metrics.verify.contradiction import CONTRADICTION_THRESHOLD
from reasoning_metrics.verify.doubt import doubt_cues
from reasoning_metrics.verify.equations import equation_conflicts
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.guard import tick
from reasoning_metrics.verify.plausibility import not_whole_answer
from reasoning_metrics.verify.quantities import unsupported_operands, unused_given_numbers

SEVERITY = {
    FlagKind.ARITHMETIC: 0.9,
    FlagKind.EQUATION: 0.7,
    FlagKind.JUDGE: 0.8,
    FlagKind.UNSUPPORTED_NUMBER: 0.5,
    FlagKind.REPETITION: 0.5,
    FlagKind.UNUSED_GIVEN: 0.3,
    FlagKind.NO_FINAL_ANSWER: 0.3,
    FlagKind.NOT_WHOLE: 0.5,
}
"""Severity of each kind of flag; doubt cues carry their own (:data:`.doubt.WEIGHTS`), contradictions
``CONTRADICTION_WEIGHT * P(contradiction)``."""
CONTRADICTION_WEIGHT = 0.8
REPEAT_SIMILARITY = 0.98
"""ROSCOE cos* to an earlier step at which a step counts as a repetition (1.0 = identical embedding)."""
_ANSWER_MARKERS = r"\\boxed|####|\banswer\b|\bfinal\b|答案|故选|选[A-DＡ-Ｄ]"
_FINAL_ANSWER = re.compile(_ANSWER_MARKERS, re.IGNORECASE)
_FINAL_ANSWER_ZH = re.compile(_ANSWER_MARKERS + r"|[=＝∴]|故|所以|因此|综上|解得|答[:：]", re.IGNORECASE)
"""How a last step states its result depends on the language of the problem. Chinese solutions
conclude with a relation or a concluding word (``∴ x = 3``, 故, 所以, 因此, 综上, 解得, 答：), which
teacher analyses do without any answer marker. English model output states it with a marker
(``\\boxed``, ``####``, "the answer is"); one that ends on "So, ..." or a bare calculation without
it is wrong far more often than the rest (docs/detectors.md), so only the marker counts there.
A Chinese solution that calculates nothing and concludes nowhere is an explanation (物理:
这表明力可以改变物体的运动状态．) and is not asked to conclude in any particular words; one that
states its answer with a marker (故答案为...) before its last step is still flagged."""


def findings(
    problem: str,
    steps: Sequence[str],
    checks: Sequence[StepCheck],
    roscoe: ChainScores | None = None,
    contradictions: Sequence[float] | None = None,
    judged: int | None = None,
) -> tuple[list[list[StepFlag]], list[StepFlag]]:
    """Flags per step and flags of the whole solution."""
    step_flags = _step_flags(problem, checks, steps)
    for i in _repeated_steps(steps, roscoe):
        step_flags[i].append(_flag(FlagKind.REPETITION, "repeats an earlier step"))
    for i, p in enumerate(contradictions or ()):
        if p >= CONTRADICTION_THRESHOLD:
            message = f"contradicts the question or an earlier step (P = {p:.2f})"
            step_flags[i].append(
                StepFlag(kind=FlagKind.CONTRADICTION, severity=CONTRADICTION_WEIGHT * p, message=message)
            )
    if judged is not None and 0 <= judged < len(steps):
        step_flags[judged].append(_flag(FlagKind.JUDGE, "the judge names this step as the first wrong one"))
    return step_flags, _solution_flags(problem, checks, steps)


def _flag(kind: FlagKind, message: str, evidence: str | None = None) -> StepFlag:
    return StepFlag(kind=kind, severity=SEVERITY[kind], message=message, evidence=evidence)


def _repeated_steps(steps: Sequence[str], roscoe: ChainScores | None) -> list[int]:
    """Steps equal to an earlier one once case, spaces and punctuation are ignored, or (with an encoder)
    whose ROSCOE repetition similarity (``StepDetail.repeat_similarity``) reaches :data:`REPEAT_SIMILARITY`."""
    seen: set[str] = set()
    repeated = []
    for i, step in enumerate(steps):
        key = re.sub(r"[\W_]+", "", step.lower())
        similarity = roscoe.steps[i].repeat_similarity if roscoe is not None and i < len(roscoe.steps) else None
        if (key and key in seen) or (similarity is not None and similarity >= REPEAT_SIMILARITY):
            repeated.append(i)
        seen.add(key)
    return repeated


def _step_flags(problem: str, checks: Sequence[StepCheck], steps: Sequence[str]) -> list[list[StepFlag]]:
    flags: list[list[StepFlag]] = [[] for _ in checks]
    for i, check in enumerate(checks):
        for claim in check.false_claims:
            actual = f"{claim.left_value:.6g} vs {claim.right_value:.6g}"
            message = f"{claim.expression} does not hold ({actual})"
            if claim.name:
                message = f"{claim.name} = {claim.left}, then {claim.name} = {claim.right} ({actual})"
            flags[i].append(_flag(FlagKind.ARITHMETIC, message, claim.expression))
    for i, conflicts in enumerate(equation_conflicts(checks)):
        flags[i] += [_flag(FlagKind.EQUATION, c.message, c.expression) for c in conflicts]
    for i, unsupported in enumerate(unsupported_operands(problem, checks)):
        for operand in unsupported:
            message = f"{operand.value:g} in {operand.expression} is new: not given, not derived"
            flags[i].append(_flag(FlagKind.UNSUPPORTED_NUMBER, message, operand.expression))
    for i, step in enumerate(steps):
        tick()
        for cue in doubt_cues(step, problem):
            message = f"{cue.kind.value.replace('_', ' ')}: {cue.text!r}"
            flags[i].append(StepFlag(kind=FlagKind.DOUBT, severity=cue.weight, message=message, evidence=cue.text))
    return flags


def _solution_flags(problem: str, checks: Sequence[StepCheck], steps: Sequence[str]) -> list[StepFlag]:
    flags = []
    unused = unused_given_numbers(problem, checks)
    if unused:
        listed = ", ".join(f"{v:g}" for v in unused[:5])
        flags.append(_flag(FlagKind.UNUSED_GIVEN, f"given number(s) never used: {listed}"))
    chinese = detect_language(problem) == "zh"
    final_answer = _FINAL_ANSWER_ZH if chinese else _FINAL_ANSWER
    explanation = (
        chinese
        and not any(check.calculates for check in checks)
        and not any(_FINAL_ANSWER.search(step) for step in steps[:-1])
    )
    if steps and not final_answer.search(steps[-1]) and not explanation:
        flags.append(_flag(FlagKind.NO_FINAL_ANSWER, "the last step states no final answer"))
    answer = not_whole_answer(problem, checks)
    if answer is not None:
        flags.append(_flag(FlagKind.NOT_WHOLE, f"the question asks how many; the answer {answer:g} is not whole"))
    return flags
