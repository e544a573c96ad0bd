"""One step-labelled solution, whatever format it was read from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LabelledSolution:
    """One solution with what is known about its wrong steps."""

    id: str
    problem: str
    steps: tuple[str, ...]
    has_error: bool
    first_error: int | None
    """0-based index of the first wrong step; ``None`` when there is no error or its place is unknown."""
    step_labels: tuple[bool | None, ...]
    """Per step: ``True`` wrong, ``False`` correct, ``None`` not labelled."""
    lang: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def target(self) -> int | None:
        """ProcessBench target: the first wrong step, -1 for a correct solution, ``None`` if unknown."""
        return self.first_error if self.has_error else -1


def from_first_error(
    id: str,
    problem: str,
    steps: list[str],
    first_error: int,
    lang: str | None = None,
    meta: dict | None = None,
) -> LabelledSolution:
    """A solution labelled only by its first wrong step (-1 none): earlier steps correct, later unknown."""
    if first_error < 0:
        labels: tuple[bool | None, ...] = (False,) * len(steps)
    else:
        labels = (False,) * first_error + (True,) + (None,) * (len(steps) - first_error - 1)
    return LabelledSolution(
        id,
        problem,
        tuple(steps),
        first_error >= 0,
        first_error if first_error >= 0 else None,
        labels,
        lang,
        meta or {},
    )
