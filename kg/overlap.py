"""Questions two banks share: CMMLU's overlap check, as its paper ran it against other benchmarks.

A question's key is its stem and its options' texts in sorted order, with every punctuation
mark and space removed (symbols such as ``+``, ``<``, ``°`` stay: they carry meaning) and the text folded (NFKC, lower case); two questions overlap when
their keys are equal (an exact match, nothing fuzzy). Sorting the options finds a question whose
options were shuffled; the answer is left out of the key, as the check asks whether a question
was seen, not how it was answered.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from kg.records import Question

_DROPPED = ("P", "Z", "C")
"""Unicode categories removed from a key: punctuation, separators (spaces), controls."""


def fold(text: str) -> str:
    """``text`` folded (NFKC, lower case) without punctuation or spaces."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return "".join(c for c in folded if unicodedata.category(c)[0] not in _DROPPED)


def overlap_key(question: Question) -> str:
    """The stem and the sorted option texts, each folded (:func:`fold`), joined by a separator."""
    return "\x1f".join([fold(question.stem), *sorted(fold(o.text) for o in question.options)])


@dataclass(frozen=True)
class Overlap:
    """The questions of bank A found in bank B."""

    pairs: list[tuple[str, str]]
    """``(id in A, id in B)`` for every match; a question of A matching several of B gives several pairs."""
    questions_a: int
    questions_b: int
    empty: int
    """Questions of A whose key is empty (nothing but punctuation): never counted as a match."""

    @property
    def matched_a(self) -> int:
        """Distinct questions of A found in B."""
        return len({a for a, _ in self.pairs})


def find_overlap(a: Iterable[Question], b: Iterable[Question]) -> Overlap:
    """The questions of ``a`` whose key (:func:`overlap_key`) is also a key of ``b``, in ``a``'s order."""
    by_key: dict[str, list[str]] = {}
    count_b = 0
    for question in b:
        count_b += 1
        by_key.setdefault(overlap_key(question), []).append(question.id)
    pairs: list[tuple[str, str]] = []
    count_a = empty = 0
    for question in a:
        count_a += 1
        key = overlap_key(question)
        if not key.replace("\x1f", ""):
            empty += 1
            continue
        pairs.extend((question.id, other) for other in by_key.get(key, []))
    return Overlap(pairs, count_a, count_b, empty)
