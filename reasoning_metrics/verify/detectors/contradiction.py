"""``contradiction``: an NLI model finds a step contradicts the question or an earlier step (:mod:`..rules.contradiction`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rules.contradiction import CONTRADICTION_THRESHOLD

CONTRADICTION_WEIGHT = 0.8
"""A contradiction flag's severity is this times P(contradiction)."""


class Contradiction(Detector):
    """A flag on each step whose P(contradiction) reaches :data:`~..rules.contradiction.CONTRADICTION_THRESHOLD`."""

    name = "contradiction"
    labels = Labels(zh="矛盾检测（NLI）", en="contradiction (NLI)")
    reads = frozenset({"contradictions"})
    needs = frozenset({"contradictions"})
    kinds = frozenset({FlagKind.CONTRADICTION})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = [[] for _ in evidence.steps]
        for i, p in enumerate(evidence.contradictions or ()):
            if p >= CONTRADICTION_THRESHOLD:
                message = f"contradicts the question or an earlier step (P = {p:.2f})"
                zh = f"与题目或前面的步骤矛盾（P = {p:.2f}）"
                severity = CONTRADICTION_WEIGHT * p
                steps[i].append(
                    StepFlag(kind=FlagKind.CONTRADICTION, severity=severity, message=message, message_zh=zh)
                )
        return Findings.at_steps(steps)
