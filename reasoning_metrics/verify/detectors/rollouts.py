"""``rollouts``: no sampled continuation from a step's prefix reaches the gold answer (:mod:`..rollouts`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Evidence, Findings, Input, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rollouts import first_dead_end


class Rollouts:
    """A flag on the first step after which no continuation reaches the gold answer (Math-Shepherd's dead end)."""

    name = "rollouts"
    reads: frozenset[Input] = frozenset({"rollouts"})
    needs: frozenset[Input] = frozenset({"rollouts"})
    kinds = frozenset({FlagKind.ROLLOUT})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = [[] for _ in evidence.steps]
        shares = evidence.rollouts or ()
        dead = first_dead_end(shares)
        if 0 <= dead < len(steps):
            before = [s for s in shares[:dead] if s is not None]
            how = f" (after {max(before):.0%} before it)" if before and max(before) > 0 else ""
            steps[dead].append(flag(FlagKind.ROLLOUT, "no continuation from this step reaches the gold answer" + how))
        return Findings.at_steps(steps)
