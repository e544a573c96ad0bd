"""``unsupported_numbers``: an operand or stated answer that comes from nowhere (:mod:`..rules.quantities`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.quantities import unsupported_operands


class UnsupportedNumbers(Detector):
    """One flag per number of a step that is neither given nor derived."""

    name = "unsupported_numbers"
    labels = Labels(zh="来历不明的数", en="unsupported numbers")
    orientation = "number of operands from nowhere"
    """What its score counts, as meta-eval reports it alone (higher = more suspect)."""
    reads = frozenset({"problem", "checks"})
    needs = frozenset()
    kinds = frozenset({FlagKind.UNSUPPORTED_NUMBER})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        return Findings.at_steps(
            [
                [
                    flag(
                        FlagKind.UNSUPPORTED_NUMBER,
                        f"{operand.value:g} in {operand.expression} is new: not given, not derived",
                        operand.expression,
                        f"{operand.expression} 中的 {operand.value:g} 来历不明：题目没有给出，前面也没有算出",
                    )
                    for operand in unsupported
                ]
                for unsupported in unsupported_operands(evidence.problem, evidence.checks)
            ]
        )
