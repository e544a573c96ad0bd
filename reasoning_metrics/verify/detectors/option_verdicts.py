"""``option_verdicts``: the first step giving an option of a choice question the wrong verdict (:mod:`..verdicts`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.verdicts import wrong_verdicts


class OptionVerdicts(Detector):
    """Flags each step whose verdict on an option the gold answer rules out."""

    name = "option_verdicts"
    labels = Labels(zh="选项判断检查", en="option verdicts")
    orientation = "number of options given the verdict the gold answer rules out"
    """What its score counts, as meta-eval reports it alone (higher = more suspect)."""
    reads = frozenset({"problem", "steps", "reference"})
    needs = frozenset({"reference"})
    kinds = frozenset({FlagKind.WRONG_VERDICT})

    def find(self, evidence: Evidence) -> Findings:
        """Flags per step."""
        steps: list[list[StepFlag]] = [[] for _ in evidence.steps]
        if evidence.reference is None:
            return Findings.at_steps(steps)
        for found in wrong_verdicts(evidence.problem, evidence.steps, evidence.reference.answer):
            said = "chooses" if found.said == "chosen" else "rejects"
            zh = f"{'选了' if found.said == 'chosen' else '排除了'}选项 {found.option}，与标准答案相反"
            message = f"{said} option {found.option}, against the gold answer"
            steps[found.step].append(flag(FlagKind.WRONG_VERDICT, message, found.option, zh))
        return Findings.at_steps(steps)
