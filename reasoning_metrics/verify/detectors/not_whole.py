"""``not_whole``: the question asks how many things; the stated answer is not whole (:mod:`..rules.plausibility`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind
from reasoning_metrics.verify.rules.plausibility import not_whole_answer


class NotWhole(Detector):
    """A solution flag when a count is answered with a fraction."""

    name = "not_whole"
    labels = Labels(zh="个数是否为整数", en="whole counts")
    reads = frozenset({"problem", "checks"})
    needs = frozenset()
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
