"""Named selections of a bank's questions: the subsets the papers score, chosen by name.

``reasoning-subset`` is the CK12 paper's Table 2 set: math questions whose teacher's analysis
has more than two steps. A step is a paragraph of the analysis, as CK12's released few-shot-CoT
exemplars number them (``analysis.split('\n\n')`` -> "1. ... 2. ..."), the same split
:func:`runners.prompting.number_steps` makes.

It does not give the paper's 7,334, and nothing in the release can: the paper states no rule beyond
"more than two analysis steps", and by this one the full release holds 5,683 (#31's measurement), its
初中 part 1,312 of 2,130 math questions (``k12eval kg stats ../shared/data/ck12/original_data --select
reasoning-subset``). The paper's bank is smaller than the release (39,452 questions against 41,328), so
the gap is no questions the release lacks. Counting paragraphs that are at least two instead gives
1,660 on 初中 (x1.27; tests/runners/test_selection.py), which would put the full release near 7,190 if
every stage behaved alike: near 7,334, but not verifiable here (the shared data holds 初中 only).

``run`` (``--select NAME``), ``score`` and Table 2 read the same names through :func:`select`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from kg.errors import SettingError
from kg.records import Question

_PARAGRAPHS = re.compile(r"\n\s*\n")
REASONING_MIN_STEPS = 3
"""More than two analysis steps."""


def analysis_steps(analysis: str) -> int:
    """How many steps (non-empty paragraphs) the teacher's analysis has."""
    return sum(1 for part in _PARAGRAPHS.split(analysis.strip()) if part.strip())


def in_reasoning_subset(question: Question) -> bool:
    """A math question whose analysis has more than two steps (CK12 Table 2)."""
    return question.subject == "数学" and analysis_steps(question.analysis) >= REASONING_MIN_STEPS


SELECTIONS: dict[str, Callable[[Question], bool]] = {
    "all": lambda question: True,
    "reasoning-subset": in_reasoning_subset,
}
"""Selection name -> predicate on a question."""


def select(questions: Iterable[Question], name: str) -> list[Question]:
    """The questions of the selection ``name``, in their order; an unknown name is an :class:`InputError`."""
    predicate = SELECTIONS.get(name)
    if predicate is None:
        raise SettingError("select", name, f"choose one of {', '.join(SELECTIONS)}")
    return [q for q in questions if predicate(q)]
