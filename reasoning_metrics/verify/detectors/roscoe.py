"""``roscoe``: ROSCOE's Faithfulness-Step, which only orders solutions whose flags are equal.

It raises no flag: the aggregate adds ``TIE_BREAK * (1 - Faithfulness-Step)`` to the score and
shows each step's alignment (:mod:`..aggregate_rule`). It is a detector so that whether it ran, or why
not, is reported under one name like the others.
"""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels


class Roscoe(Detector):
    """No flags; present when a sentence encoder ran."""

    name = "roscoe"
    labels = Labels(zh="ROSCOE 相似度", en="ROSCOE similarity")
    reads = frozenset({"roscoe"})
    needs = frozenset({"roscoe"})
    kinds = frozenset()

    def find(self, evidence: Evidence) -> Findings:
        """Nothing per step or per solution."""
        return Findings.at_steps([[] for _ in evidence.steps])
