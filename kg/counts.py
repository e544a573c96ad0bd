"""A bank's counts taken one question at a time: what ``kg stats`` prints, in the memory of its knowledge points.

The same numbers as :meth:`kg.graph.KnowledgeGraph.stats` and :meth:`~kg.graph.KnowledgeGraph.sparse_level2`
over the whole graph, without holding the questions or building the graph: a bank of a million
questions is counted in one pass.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kg.graph import MIN_LEVEL2_QUESTIONS, level1_id, level2_id, place_names, subject_id
from kg.records import Question


@dataclass
class BankCounts:
    """Counts over the questions :meth:`add` was given."""

    questions: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    by_subject: Counter[str] = field(default_factory=Counter)
    by_stage: Counter[str] = field(default_factory=Counter)
    by_difficulty: Counter[str] = field(default_factory=Counter)
    subjects: set[str] = field(default_factory=set)
    level1: set[str] = field(default_factory=set)
    level2_by_split: dict[str | None, Counter[str]] = field(default_factory=dict)
    """Questions per level-2 node id in each split (``None``: questions that carry none)."""
    names: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    """Level-2 node id -> (subject, level-1, level-2) names."""
    warnings: int = 0
    """Questions imported with a warning (``extra["warnings"]``)."""
    placed_twice: int = 0
    """Questions at more than one place (:func:`kg.graph.placements`): counted in each subject, so ``by_subject``
    sums to more than ``questions``."""

    _ids: dict[tuple[str, str, str], str] = field(default_factory=dict, repr=False)
    """(subject, level-1, level-2) names -> level-2 node id: each point's ids made once, not once a question."""

    def add(self, q: Question) -> None:
        """Count one question."""
        self.questions += 1
        self.by_type[q.type.value] += 1
        self.by_stage[q.stage.value if q.stage else "unknown"] += 1
        self.by_difficulty[q.difficulty or "unknown"] += 1
        places = place_names(q)
        self.placed_twice += len(places) > 1
        for names in places:  # a question at two places (Xiezhi: labelled in two 门类) counts at each
            self.by_subject[names[0]] += 1
            level2 = self._ids.get(names)
            if level2 is None:
                self.subjects.add(subject_id(names[0]))
                self.level1.add(level1_id(names[0], names[1]))
                level2 = self._ids[names] = level2_id(*names)
                self.names.setdefault(level2, names)
            self.level2_by_split.setdefault(q.split, Counter())[level2] += 1
        self.warnings += bool(q.extra.get("warnings"))

    @property
    def level2(self) -> Counter[str]:
        """Questions per level-2 node id, every split together: the per-split counts summed, so the whole and
        its splits cannot disagree (one count kept, not two)."""
        return sum(self.level2_by_split.values(), Counter())

    def sparse_level2(self, minimum: int = MIN_LEVEL2_QUESTIONS, split: str | None = None) -> list[tuple[str, int]]:
        """Level-2 points with fewer than ``minimum`` questions, as ``(node id, count)``, fewest first (as
        :meth:`kg.graph.KnowledgeGraph.sparse_level2`); counting the ``split`` questions only when given (the
        split a run scores: CMMLU's 5 dev questions a subject are exemplars, not a point's accuracy)."""
        points = self.level2 if split is None else self.level2_by_split.get(split, Counter())
        return sorted(((n, c) for n, c in points.items() if c < minimum), key=lambda item: (item[1], item[0]))

    def level2_in(self, split: str | None = None) -> int:
        """How many level-2 points hold a question (of ``split`` when given)."""
        return len(self.level2 if split is None else self.level2_by_split.get(split, ()))


def most_common(counts: Counter[str]) -> dict[str, int]:
    """``counts`` as a dict, most common first (ties in first-seen order), as the graph's stats order them."""
    return dict(counts.most_common())
