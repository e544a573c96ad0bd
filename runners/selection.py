"""Named selections of a bank's questions: the subsets the papers score, chosen by name.

``reasoning-subset`` is the CK12 paper's Table 2 set: math questions whose teacher's analysis
has more than two steps (7,334 questions in the paper's release). A step is a paragraph of the
analysis, as CK12's released few-shot-CoT exemplars number them ("1. ... 2. ..."), the same split
:func:`runners.prompting.number_steps` makes.

``run`` (``--select NAME``), ``score`` and Table 2 read the same names through :func:`select`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from kg.errors import InputError
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
        raise InputError(f"--select {name!r}: choose one of {', '.join(SELECTIONS)}")
    return [q for q in questions if predicate(q)]
