"""Every registered detector's findings on one solution, merged in the registry's order."""

from __future__ import annotations

from dataclasses import dataclass

from reasoning_metrics.verify.detector import Evidence
from reasoning_metrics.verify.flags import StepFlag
from reasoning_metrics.verify.registry import DETECTORS


@dataclass(frozen=True)
class Merged:
    """All detectors' flags on one solution, and which detectors ran."""

    steps: list[list[StepFlag]]
    """One list per step, each detector's flags in :data:`~.registry.DETECTORS` order."""
    solution: list[StepFlag]
    ran: list[str]
    """Names of the detectors that ran: every one whose ``needs`` the evidence meets."""


def findings(evidence: Evidence) -> Merged:
    """Run every detector of :data:`~.registry.DETECTORS` that can run on ``evidence``."""
    steps: list[list[StepFlag]] = [[] for _ in evidence.checks]
    solution: list[StepFlag] = []
    ran = []
    for name, detector in DETECTORS.items():
        if not evidence.has(detector.needs):
            continue
        found = detector.find(evidence)
        for mine, theirs in zip(steps, found.steps, strict=True):
            mine += theirs
        solution += found.solution
        ran.append(name)
    return Merged(steps, solution, ran)
