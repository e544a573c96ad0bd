"""``doubt``: self-correction, unstated assumptions, "impossible", approximation words (:mod:`..doubt`)."""

from __future__ import annotations

from reasoning_metrics.guard import tick
from reasoning_metrics.verify.detector import Evidence, Findings, Input
from reasoning_metrics.verify.doubt import doubt_cues
from reasoning_metrics.verify.flags import FlagKind, StepFlag


class Doubt:
    """One flag per doubt cue of a step, with the cue's own weight as its severity."""

    name = "doubt"
    reads: frozenset[Input] = frozenset({"problem", "steps"})
    needs: frozenset[Input] = frozenset()
    kinds = frozenset({FlagKind.DOUBT})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = []
        for step in evidence.steps:
            tick()
            steps.append(
                [
                    StepFlag(
                        kind=FlagKind.DOUBT,
                        severity=cue.weight,
                        message=f"{cue.kind.value.replace('_', ' ')}: {cue.text!r}",
                        evidence=cue.text,
                    )
                    for cue in doubt_cues(step, evidence.problem)
                ]
            )
        return Findings.at_steps(steps)
