"""``equations``: an equation in one unknown whose solution differs from the previous one (:mod:`..rules.equations`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.equations import equation_conflicts


class Equations(Detector):
    """One flag per conflicting equation of a step."""

    name = "equations"
    labels = Labels(zh="方程检查", en="equations")
    orientation = "number of conflicting equations"
    """What its score counts, as meta-eval reports it alone (higher = more suspect)."""
    reads = frozenset({"checks"})
    needs = frozenset()
    kinds = frozenset({FlagKind.EQUATION})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        return Findings.at_steps(
            [
                [flag(FlagKind.EQUATION, c.message, c.expression, c.message_zh) for c in conflicts]
                for conflicts in equation_conflicts(evidence.checks)
            ]
        )
