"""Words by which a solution shows its own doubt: self-correction, unsupported assumptions, impossibility.

A model that writes "However, ..." "Wait", "Let's recalculate", "Assuming that
...", "this is not possible" or "题目没有说明" in the middle of a solution has
usually just made, or is about to make, a mistake it cannot resolve; correct
solutions rarely need these words. Each cue has a kind and a weight; the
aggregate (:mod:`..aggregate_rule`) turns them into a step flag. Approximation words
("approximately", "round to", "约") are the weakest cue: legitimate in
measurement problems, suspicious in counting ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum


class DoubtKind(Enum):
    """What a doubt cue says about the solution."""

    SELF_CORRECTION = "self_correction"
    ASSUMPTION = "assumption"
    IMPOSSIBILITY = "impossibility"
    APPROXIMATION = "approximation"


WEIGHTS = {
    DoubtKind.SELF_CORRECTION: 0.5,
    DoubtKind.IMPOSSIBILITY: 0.5,
    DoubtKind.ASSUMPTION: 0.4,
    DoubtKind.APPROXIMATION: 0.2,
}
"""How strongly each kind of cue suggests an error in its step (a probability-like weight)."""

_EN = {
    DoubtKind.SELF_CORRECTION: (
        r"\bhowever\b|\bwait\b|\bactually\b|\bmistake\b|\bmy error\b"
        r"|\bre-?(?:calculat|evaluat|consider|examin)\w*"
        r"|\blet(?:'s| us| me) (?:re-?(?:calculat|evaluat|examin|consider|check|comput|think|visit|assess|analy[sz]|read|do|work|interpret|approach|stat)\w*|double[- ]check|correct)\b|\bcorrect(?:ion|ed|ly interpret\w*)\b"
        r"|\bon second thought\b|\bhmm\b"
    ),
    DoubtKind.ASSUMPTION: (
        r"\bassum\w+|\binterpret\w*|\bclarif\w+|\b(?:not|isn't|is not) (?:specified|given|stated|clear)\b"
        r"|\bunclear\b|\bambiguous\b"
    ),
    DoubtKind.IMPOSSIBILITY: (
        r"\bnot possible\b|\bimpossible\b|\bdoesn't make sense\b|\bdoes not make sense\b|\bcannot be\b"
        r"|\bcan't be\b"
    ),
    DoubtKind.APPROXIMATION: r"\bapproximately\b|\bround(?:ed|ing)?\b(?: (?:up|down|to))?",
}
_ZH = {  # only words a teacher's analysis does not use: 矛盾, 不合题意, 假设 are part of correct proofs
    DoubtKind.SELF_CORRECTION: (
        # 等等 as "wait" opens a clause (等等，我算错了); after a list it means "etc." (钳子、扳手等等)
        r"(?<![^\s。．.！!？?，,：:；;…])等等(?=\s*[，,！!。．…])|等一下|重新(?:计算|考虑|审视|检查)|更正|纠正|之前的?(?:计算|理解)有误|我错了"
        # "算错/写错", but not a teacher's warning: 注意不要写错, 容易算错, 以免算错.
        r"|(?<!不要)(?<!别)(?<!容易)(?<!避免)(?<!以免)(?<!防止)(?<!不能)(?:算错|写错)"
    ),
    DoubtKind.ASSUMPTION: r"题目(?:中)?(?:没有|未|并未)(?:说明|给出|明确|提到)|可能是指",
    DoubtKind.IMPOSSIBILITY: r"说不通|这不可能",
    DoubtKind.APPROXIMATION: r"四舍五入|大约",
}
_PATTERNS = [(kind, re.compile(f"(?:{_EN[kind]})|(?:{_ZH[kind]})", re.IGNORECASE)) for kind in DoubtKind]


@dataclass(frozen=True)
class DoubtCue:
    """One doubt word found in a step."""

    kind: DoubtKind
    text: str
    """The words as written."""

    @property
    def weight(self) -> float:
        """:data:`WEIGHTS` of its kind."""
        return WEIGHTS[self.kind]


def doubt_cues(step: str, question: str = "") -> list[DoubtCue]:
    """Every doubt cue of one step, at most one per kind (the first found).

    Words the ``question`` itself uses are not the solver's doubt ("However, 40 guests came",
    "after 3 rounds", "the wait time"): a cue whose text the question contains is skipped.
    """
    asked = question.lower()
    cues = []
    for kind, pattern in _PATTERNS:
        match = next((m for m in pattern.finditer(step) if not asked or m.group(0).lower() not in asked), None)
        if match:
            cues.append(DoubtCue(kind, match.group(0)))
    return cues
