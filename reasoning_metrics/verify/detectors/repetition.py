"""``repetition``: a step that repeats an earlier one, as text or (with an encoder) by ROSCOE similarity."""

from __future__ import annotations

import re

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind

REPEAT_SIMILARITY = 0.98
"""ROSCOE cos* to an earlier step at which a step counts as a repetition (1.0 = identical embedding)."""


class Repetition(Detector):
    """A flag on each step equal to an earlier one once case, spaces and punctuation are ignored, or
    whose ROSCOE repetition similarity (``StepDetail.repeat_similarity``) reaches :data:`REPEAT_SIMILARITY`."""

    name = "repetition"
    labels = Labels(zh="重复检查", en="repetition")
    reads = frozenset({"steps", "roscoe"})
    needs = frozenset()  # without an encoder it still finds verbatim repeats
    kinds = frozenset({FlagKind.REPETITION})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        roscoe = evidence.roscoe
        seen: set[str] = set()
        steps = []
        for i, step in enumerate(evidence.steps):
            key = re.sub(r"[\W_]+", "", step.lower())
            similarity = roscoe.steps[i].repeat_similarity if roscoe is not None and i < len(roscoe.steps) else None
            repeated = (key and key in seen) or (similarity is not None and similarity >= REPEAT_SIMILARITY)
            steps.append(
                [flag(FlagKind.REPETITION, "repeats an earlier step", zh="重复前面的步骤")] if repeated else []
            )
            seen.add(key)
        return Findings.at_steps(steps)
