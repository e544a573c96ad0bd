"""The fixed development / confirmation split of every labelled set, decided before looking at any result.

A solution belongs to the development half when the first byte of ``sha256(key)`` is even, to the
confirmation half when it is odd. ``key`` is ``meta["question_id"]`` when the record names the
question it answers, else the solution's own ``id``: every solution of one question (MR-GSM8K's two
generators share its uuid) falls in the same half, and the split depends on neither the file's name
nor the order of its records, so it is the same on every machine and in every run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal, TypeVar

from reasoning_metrics.metaeval.data import LabelledSolution

Half = Literal["dev", "confirm"]
HALVES: tuple[str, ...] = ("dev", "confirm", "all")
"""What ``--half`` accepts."""

S = TypeVar("S", bound=LabelledSolution)


def split_key(solution: LabelledSolution) -> str:
    """What the split hashes: the question's id when the record gives one, else the solution's id."""
    question = solution.meta.get("question_id") if isinstance(solution.meta, dict) else None
    return str(question) if question not in (None, "") else solution.id


def half_of(key: str) -> Half:
    """``dev`` when the first byte of sha256(``key``) is even, else ``confirm``."""
    return "dev" if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0 else "confirm"


def in_half(solutions: Sequence[S], half: str) -> list[S]:
    """The solutions of ``half`` (``dev``, ``confirm`` or ``all``), in their order."""
    if half not in HALVES:
        raise ValueError(f"unknown half {half!r}; choose one of {', '.join(HALVES)}")
    if half == "all":
        return list(solutions)
    return [s for s in solutions if half_of(split_key(s)) == half]


def half_indices(solutions: Sequence[LabelledSolution], half: str) -> list[int]:
    """Positions in ``solutions`` of the solutions of ``half``."""
    if half == "all":
        return list(range(len(solutions)))
    keep = {id(s) for s in in_half(solutions, half)}
    return [i for i, s in enumerate(solutions) if id(s) in keep]
