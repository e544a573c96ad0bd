"""``not_whole``: the question asks how many things; the stated answer is not whole (:mod:`..rules.plausibility`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Evidence, Findings, Input, flag
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.plausibility import not_whole_answer


class NotWhole:
    """A solution flag when a count is answered with a fraction."""

    name = "not_whole"
    reads: frozenset[Input] = frozenset({"problem", "checks"})
    needs: frozenset[Input] = frozenset()
    kinds = frozenset({FlagKind.NOT_WHOLE})

    def find(self, evidence: Evidence) -> Findings:
        """A solution flag, or none."""
        answer = not_whole_answer(evidence.problem, evidence.checks)
        flags = []
        if answer is not None:
            zh = f"题目问有多少个；答案 {answer:g} 不是整数"
            flags.append(
                flag(FlagKind.NOT_WHOLE, f"the question asks how many; the answer {answer:g} is not whole", zh=zh)
            )
        return Findings.of_solution(len(evidence.steps), flags)
