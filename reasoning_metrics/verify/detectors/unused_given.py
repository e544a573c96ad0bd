"""``unused_given``: a number the question gives that no step uses (:mod:`..rules.quantities`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.quantities import unused_given_numbers


class UnusedGiven(Detector):
    """One solution flag listing (up to five of) the unused given numbers."""

    name = "unused_given"
    labels = Labels(zh="已知数是否用到", en="unused givens")
    reads = frozenset({"problem", "checks"})
    needs = frozenset()
    kinds = frozenset({FlagKind.UNUSED_GIVEN})

    def find(self, evidence: Evidence) -> Findings:
        """A solution flag, or none."""
        unused = unused_given_numbers(evidence.problem, evidence.checks)
        flags = []
        if unused:
            listed = ", ".join(f"{v:g}" for v in unused[:5])
            zh = f"题目给出的数没有用到：{listed}"
            flags.append(flag(FlagKind.UNUSED_GIVEN, f"given number(s) never used: {listed}", zh=zh))
        return Findings.of_solution(len(evidence.steps), flags)
