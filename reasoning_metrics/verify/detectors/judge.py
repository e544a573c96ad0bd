"""``judge``: the step an LLM judge names as the first wrong one (:mod:`..rules.judge`; a process reward model is ``prm``)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag


class Judge(Detector):
    """A flag on the judged step, if the judge named one of the solution's steps."""

    name = "judge"
    labels = Labels(zh="评审模型", en="judge")
    reads = frozenset({"judged"})
    needs = frozenset({"judged"})
    kinds = frozenset({FlagKind.JUDGE})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = [[] for _ in evidence.steps]
        judged = evidence.judged
        if judged is not None and 0 <= judged < len(steps):
            model = evidence.models.get("judged")
            whose, whose_zh = (f"the judge ({model})", f"评审模型（{model}）") if model else ("the judge", "评审模型")
            steps[judged].append(
                flag(
                    FlagKind.JUDGE,
                    f"{whose} names this step as the first wrong one",
                    evidence=model,
                    zh=f"{whose_zh}认为这是第一个错误步骤",
                )
            )
        return Findings.at_steps(steps)
