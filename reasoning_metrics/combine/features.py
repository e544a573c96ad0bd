"""Per-step features for the learned combination: every registered detector's flags, position, length,
what the step calculates, what it says that the question and earlier steps did not (and whether the
teacher's analysis says it too, :mod:`.lexical`), the grade of the final answer when known, and ROSCOE's
step scores when an encoder ran.

Generic over :data:`~reasoning_metrics.verify.registry.DETECTORS`: each detector that raises flags
gives four columns (``<name>.count``, ``<name>.max``, ``<name>.earlier``, ``<name>.solution``), named
after it, so a detector added to the registry becomes features without a change here. The flags
are read from the :class:`~reasoning_metrics.verify.flags.SolutionAssessment` the aggregate writes
(the same code ``k12eval score`` and ``meta-eval`` run), so nothing is detected twice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from reasoning_metrics.combine.lexical import LEXICAL_FEATURES, REFERENCE_FEATURES, lexical_features
from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.flags import SolutionAssessment
from reasoning_metrics.verify.registry import DETECTORS
from reasoning_metrics.verify.rules.arithmetic import StepCheck

BASE_FEATURES = (
    "pos.relative",
    "pos.first",
    "pos.log_steps",
    "len.log_chars",
    "calc.any",
    "calc.first",
    "calc.log_checked",
    "flags.earlier",
    "aggregate.suspicion",
    "aggregate.suspect",
)
"""Features every step has, whatever the registry holds."""
DETECTOR_PARTS = ("count", "max", "earlier", "solution")
GRADE_FEATURES = ("grade.wrong",)
"""+1 when the final answer was graded wrong, -1 when right, 0 when not known (between the two)."""
ROSCOE_FEATURES = ("roscoe.alignment", "roscoe.repetition")
GRADE_KEYS = ("graded_correct", "final_answer_correct", "correct")
"""Meta fields that say whether the final answer was graded right (the report's verdict export writes
``final_answer_correct``, as ProcessBench does)."""


def _kind_owner() -> dict[str, str]:
    return {str(kind): name for name, detector in DETECTORS.items() for kind in detector.kinds}


def detector_features() -> list[str]:
    """``<detector>.<part>`` for every registered detector that raises flags, in the registry's order."""
    return [f"{name}.{part}" for name, d in DETECTORS.items() if d.kinds for part in DETECTOR_PARTS]


def feature_names(*, roscoe: bool, grade: bool) -> list[str]:
    """Every feature this version computes, in a fixed order."""
    names = [*BASE_FEATURES, *LEXICAL_FEATURES, *REFERENCE_FEATURES, *detector_features()]
    if grade:
        names += GRADE_FEATURES
    if roscoe:
        names += ROSCOE_FEATURES
    return names


def graded_correct(meta: Mapping[str, Any]) -> bool | None:
    """Whether the solution's final answer was graded right, when its meta says so."""
    for key in GRADE_KEYS:
        value = meta.get(key)
        if isinstance(value, bool):
            return value
    return None


def graded_wrong(rows: Sequence[Mapping[str, float]]) -> bool:
    """Whether a solution's step features say its final answer was graded wrong."""
    return bool(rows) and rows[0].get("grade.wrong", 0.0) > 0


def step_features(
    steps: Sequence[str],
    assessment: SolutionAssessment,
    checks: Sequence[StepCheck] | None = None,
    roscoe: ChainScores | None = None,
    graded: bool | None = None,
    source: str = "",
    analysis: str | None = None,
) -> list[dict[str, float]]:
    """One ``feature -> value`` mapping per step (all of :func:`feature_names`, ROSCOE's only with ``roscoe``).

    ``source`` is the question as the model saw it (stem and options), ``analysis`` the teacher's
    analysis when the bank has one.
    """
    owner = _kind_owner()
    n = len(steps)
    calculates = [bool(c.calculates) for c in checks] if checks is not None and len(checks) == n else [False] * n
    checked = [c.checked for c in checks] if checks is not None and len(checks) == n else [0] * n
    first_calc = next((i for i, c in enumerate(calculates) if c), -1)
    solution_max: dict[str, float] = {}
    for f in assessment.flags:
        name = owner.get(str(f.kind))
        if name is not None:
            solution_max[name] = max(solution_max.get(name, 0.0), f.severity)
    detectors = [name for name, d in DETECTORS.items() if d.kinds]
    seen: set[str] = set()
    lexical = lexical_features(source, steps, analysis)
    rows = []
    for i in range(n):
        flags = assessment.steps[i].flags if i < len(assessment.steps) else []
        row = {
            "pos.relative": i / (n - 1) if n > 1 else 0.0,
            "pos.first": float(i == 0),
            "pos.log_steps": math.log(n),
            "len.log_chars": math.log1p(len(steps[i])),
            "calc.any": float(calculates[i]),
            "calc.first": float(i == first_calc),
            "calc.log_checked": math.log1p(checked[i]),
            "flags.earlier": float(bool(seen)),
            "aggregate.suspicion": assessment.steps[i].suspicion if i < len(assessment.steps) else 0.0,
            "aggregate.suspect": float(assessment.first_suspect == i),
            **lexical[i],
        }
        mine: dict[str, list[float]] = {}
        for f in flags:
            name = owner.get(str(f.kind))
            if name is not None:
                mine.setdefault(name, []).append(f.severity)
        for name in detectors:
            severities = mine.get(name, [])
            row[f"{name}.count"] = float(min(len(severities), 3))
            row[f"{name}.max"] = max(severities, default=0.0)
            row[f"{name}.earlier"] = float(name in seen)
            row[f"{name}.solution"] = solution_max.get(name, 0.0)
        seen.update(mine)
        row["grade.wrong"] = 0.0 if graded is None else (-1.0 if graded else 1.0)
        if roscoe is not None:
            detail = roscoe.steps[i] if i < len(roscoe.steps) else None
            alignment = detail.source_similarity if detail is not None else None
            repeat = detail.repeat_similarity if detail is not None else None
            row["roscoe.alignment"] = 0.0 if alignment is None else float(alignment)
            row["roscoe.repetition"] = 0.0 if repeat is None else float(repeat)
        rows.append(row)
    return rows
