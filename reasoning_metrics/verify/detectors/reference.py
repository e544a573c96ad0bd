"""``reference``: the first step that disagrees with the teacher's analysis or the gold answer (:mod:`..rules.reference`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.rules.reference import compare_steps, departure, new_value, read_reference

KINDS = {
    "value": FlagKind.REFERENCE_VALUE,
    "relation": FlagKind.REFERENCE_RELATION,
    "answer": FlagKind.REFERENCE_ANSWER,
    "departure": FlagKind.REFERENCE_DEPARTURE,
}


class AgainstReference(Detector):
    """Flags where steps leave the reference; a graded-right answer on hard findings and on the first
    calculation from known numbers to a value the analysis never reaches, a graded-wrong one always on some
    step (see :mod:`..rules.reference`); without an analysis, against the question's numbers and the gold answer."""

    name = "reference"
    labels = Labels(zh="对照解析", en="against the analysis")
    orientation = "number of departures from the teacher's analysis and the gold answer"
    """What its score counts, as meta-eval reports it alone (higher = more suspect)."""
    reads = frozenset({"problem", "steps", "checks", "reference"})
    needs = frozenset({"reference"})
    kinds = frozenset(KINDS.values())

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = [[] for _ in evidence.steps]
        reference = evidence.reference
        if reference is None or not evidence.steps:
            return Findings.at_steps(steps)
        read = read_reference(evidence.problem, reference)
        found = compare_steps(evidence.steps, evidence.checks, read)
        if reference.correct:
            found = [f for f in found if f.hard]
            computed = new_value(evidence.steps, evidence.checks, read, from_known=True)
            if computed is not None and not any(f.step <= computed.step for f in found):
                found.append(computed)
        if reference.correct is False:
            placed = departure(evidence.steps, evidence.checks, read)
            if not any(f.step <= placed.step for f in found):
                found.append(placed)
        for f in found:
            steps[f.step].append(flag(KINDS[f.kind], f.message, f.evidence or None, f.message_zh))
        return Findings.at_steps(steps)
