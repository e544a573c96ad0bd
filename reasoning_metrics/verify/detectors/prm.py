"""``prm``: a process reward model gives a step a probability of being correct below its threshold (:mod:`..rules.prm`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rules.prm import PRM_THRESHOLD


class PRM(Detector):
    """A flag of severity ``1 - P(correct)`` on every step the PRM scores below :data:`~..rules.prm.PRM_THRESHOLD`.

    Its first flagged step is the PRM's own first wrong step (severity above 0.5, so the aggregate
    names it too unless an earlier step is flagged).
    """

    name = "prm"
    labels = Labels(zh="过程奖励模型", en="process reward model")
    reads = frozenset({"prm"})
    needs = frozenset({"prm"})
    kinds = frozenset({FlagKind.PRM})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = [[] for _ in evidence.steps]
        model = evidence.models.get("prm")
        whose, whose_zh = (f" ({model})", f"（{model}）") if model else ("", "")
        for i, p in enumerate(evidence.prm or ()):
            if i < len(steps) and p < PRM_THRESHOLD:
                message = f"the process reward model{whose} gives this step P(correct) = {p:.2f}"
                zh = f"过程奖励模型{whose_zh}认为这一步正确的概率为 {p:.2f}"
                steps[i].append(
                    StepFlag(kind=FlagKind.PRM, severity=1 - p, message=message, evidence=model, message_zh=zh)
                )
        return Findings.at_steps(steps)
