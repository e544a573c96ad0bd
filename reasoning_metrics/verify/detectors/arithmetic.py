"""``arithmetic``: a calculation or comparison a step asserts that does not hold (:mod:`..rules.arithmetic`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag


class Arithmetic(Detector):
    """One flag per false claim of a step."""

    name = "arithmetic"
    labels = Labels(zh="计算检查", en="arithmetic")
    orientation = "number of false calculations"
    """What its score counts, as meta-eval reports it alone (higher = more suspect)."""
    reads = frozenset({"checks"})
    needs = frozenset()
    kinds = frozenset({FlagKind.ARITHMETIC})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = []
        for check in evidence.checks:
            flags = []
            for claim in check.false_claims:
                if claim.left_value is None or claim.right_value is None:  # complex: the values are in the note
                    actual = claim.note
                else:
                    actual = f"{claim.left_value:.6g} vs {claim.right_value:.6g}"
                message = f"{claim.expression} does not hold ({actual})"
                zh = f"{claim.expression} 不成立（{actual.replace(' vs ', ' 与 ')}）"
                if claim.name:
                    message = f"{claim.name} = {claim.left}, then {claim.name} = {claim.right} ({actual})"
                    zh = f"{claim.name} = {claim.left}，后来 {claim.name} = {claim.right}（{actual.replace(' vs ', ' 与 ')}）"
                flags.append(flag(FlagKind.ARITHMETIC, message, claim.expression, zh))
            steps.append(flags)
        return Findings.at_steps(steps)
