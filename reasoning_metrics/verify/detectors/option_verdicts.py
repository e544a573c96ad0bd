"""``option_verdicts``: the first step giving an option of a choice question the wrong verdict (:mod:`..verdicts`)."""

from __future__ import annotations

from reasoning_metrics.verify.detector import Detector, Evidence, Findings, Labels, flag
from reasoning_metrics.verify.flags import FlagKind, StepFlag
from reasoning_metrics.verify.verdicts import asserted_options, wrong_verdicts

_SAID = {
    "chosen": ("chooses option {}", "选了选项 {}"),
    "rejected": ("rejects option {}", "排除了选项 {}"),
    "stated": ("states the words of option {} as a fact", "把选项 {} 的内容当作事实陈述"),
}
"""What a step made of an option, in English and in Chinese."""


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
        answer = evidence.reference.answer
        verdicts = wrong_verdicts(evidence.problem, evidence.steps, answer)
        judged = {v.step for v in verdicts}
        stated = [v for v in asserted_options(evidence.problem, evidence.steps, answer) if v.step not in judged]
        for found in [*verdicts, *stated]:
            said, zh = (text.format(found.option) for text in _SAID[found.said])
            message, zh = f"{said}, against the gold answer", f"{zh}，与标准答案相反"
            steps[found.step].append(flag(FlagKind.WRONG_VERDICT, message, found.option, zh))
        return Findings.at_steps(steps)
