"""``rollouts``: no sampled continuation from a step's prefix reaches the gold answer (:mod:`..rules.rollouts`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rules.rollouts import first_dead_end


class Rollouts(Detector):
    """A flag on the first step after which no continuation reaches the gold answer (Math-Shepherd's dead end)."""

    name = "rollouts"
    labels = Labels(zh="续写检验", en="rollouts")
    reads = frozenset({"rollouts"})
    needs = frozenset({"rollouts"})
    kinds = frozenset({FlagKind.ROLLOUT})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = [[] for _ in evidence.steps]
        shares = evidence.rollouts or ()
        dead = first_dead_end(shares)
        if 0 <= dead < len(steps):
            before = [s for s in shares[:dead] if s is not None]
            how = f" (after {max(before):.0%} before it)" if before and max(before) > 0 else ""
            how_zh = f"（此前的步骤最高 {max(before):.0%}）" if before and max(before) > 0 else ""
            message = "no continuation from this step reaches the gold answer" + how
            steps[dead].append(flag(FlagKind.ROLLOUT, message, zh="从这一步续写，没有一次得到标准答案" + how_zh))
        return Findings.at_steps(steps)
