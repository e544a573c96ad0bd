"""``doubt``: self-correction, unstated assumptions, "impossible", approximation words (:mod:`..rules.doubt`)."""

from __future__ import annotations

from reasoning_metrics.guard import tick
from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rules.doubt import doubt_cues

DOUBT_ZH = {
    "self_correction": "自我更正",
    "assumption": "假设了题目没有给出的条件",
    "impossibility": "认为无法做到",
    "approximation": "近似",
}
"""The cue kinds of :class:`~..rules.doubt.DoubtKind` in Chinese."""


class Doubt(Detector):
    """One flag per doubt cue of a step, with the cue's own weight as its severity."""

    name = "doubt"
    labels = Labels(zh="自我怀疑", en="doubt")
    orientation = "weight of doubt words"
    """What its score counts, as meta-eval reports it alone (higher = more suspect)."""
    step_measure = "heaviest"
    """A step's score from its flags: their largest severity (not their number)."""
    reads = frozenset({"problem", "steps"})
    needs = frozenset()
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
                        message_zh=f"{DOUBT_ZH.get(cue.kind.value, cue.kind.value)}：“{cue.text}”",
                        evidence=cue.text,
                    )
                    for cue in doubt_cues(step, evidence.problem)
                ]
            )
        return Findings.at_steps(steps)
