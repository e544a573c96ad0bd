"""``final_answer``: the solution never states a final answer (:mod:`runners.extraction.markers`).

How a last step states its result depends on the language of the problem. Chinese solutions
conclude with a relation or a concluding word (``∴ x = 3``, 故, 所以, 因此, 综上, 解得, 答：), which
teacher analyses do without any answer marker. English model output states it with a marker
(``\\boxed``, ``####``, "the answer is"); one that ends on "So, ..." or a bare calculation without
it is wrong far more often than the rest (docs/detectors.md), so only the marker counts there.
A Chinese solution that calculates nothing and concludes nowhere is an explanation (物理:
这表明力可以改变物体的运动状态．) and is not asked to conclude in any particular words; one that
states its answer with a marker (故答案为...) before its last step is still flagged.
"""

from __future__ import annotations

from kg.records import detect_language
from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind
from runners.extraction.markers import CONCLUDES, CONCLUDES_ZH


class FinalAnswer(Detector):
    """A solution flag when the last step states no final answer (see the module doc)."""

    name = "final_answer"
    labels = Labels(zh="最终答案检查", en="final answer")
    reads = frozenset({"problem", "steps", "checks"})
    needs = frozenset()
    kinds = frozenset({FlagKind.NO_FINAL_ANSWER})

    def find(self, evidence: Evidence) -> Findings:
        """A solution flag, or none."""
        steps = evidence.steps
        chinese = detect_language(evidence.problem) == "zh"
        concludes = CONCLUDES_ZH if chinese else CONCLUDES
        explanation = (
            chinese
            and not any(check.calculates for check in evidence.checks)
            and not any(CONCLUDES.search(step) for step in steps[:-1])
        )
        flags = []
        if steps and not concludes.search(steps[-1]) and not explanation:
            flags.append(
                flag(FlagKind.NO_FINAL_ANSWER, "the last step states no final answer", zh="最后一步没有给出最终答案")
            )
        return Findings.of_solution(len(steps), flags)
