"""``arithmetic``: a calculation or comparison a step asserts that does not hold (:mod:`..rules.arithmetic`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rules.arithmetic import complex_text


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
                if claim.complex_values is not None:  # the note already says them in English
                    left, right = (complex_text(value) for value in claim.complex_values)
                    actual, actual_zh = claim.note, f"复数 {left} 与 {right}"
                elif claim.left_value is not None and claim.right_value is not None:
                    left, right = f"{claim.left_value:.6g}", f"{claim.right_value:.6g}"
                    actual, actual_zh = f"{left} vs {right}", f"{left} 与 {right}"
                else:
                    actual = actual_zh = claim.note
                message = f"{claim.expression} does not hold ({actual})"
                zh = f"{claim.expression} 不成立（{actual_zh}）"
                if claim.name:
                    message = f"{claim.name} = {claim.left}, then {claim.name} = {claim.right} ({actual})"
                    zh = f"{claim.name} = {claim.left}，后来 {claim.name} = {claim.right}（{actual_zh}）"
                flags.append(flag(FlagKind.ARITHMETIC, message, claim.expression, zh))
            steps.append(flags)
        return Findings.at_steps(steps)
