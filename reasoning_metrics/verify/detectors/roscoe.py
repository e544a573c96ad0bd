"""``roscoe``: ROSCOE's Faithfulness-Step, which only orders solutions whose flags are equal.

It raises no flag: the aggregate adds ``TIE_BREAK * (1 - Faithfulness-Step)`` to the score and
shows each step's alignment (:mod:`..aggregate_rule`). It is a detector so that whether it ran, or why
not, is reported under one name like the others.
"""

from __future__ import annotations

from reasoning_metrics.verify.detector import Evidence, Findings, Input
from reasoning_metrics.verify.flags import FlagKind


class Roscoe:
    """No flags; present when a sentence encoder ran."""

    name = "roscoe"
    reads: frozenset[Input] = frozenset({"roscoe"})
    needs: frozenset[Input] = frozenset({"roscoe"})
    kinds: frozenset[FlagKind] = frozenset()

    def find(self, evidence: Evidence) -> Findings:
        """Nothing per step or per solution."""
        return Findings.at_steps([[] for _ in evidence.steps])
