"""The perturbations of a diagnostic set: each makes one known kind of error at one known step.

Every perturbation takes the reference steps and a seeded ``random.Random`` and
returns a :class:`Perturbation` (the new steps, the first wrong step, a label per
step, and exactly what changed) or ``None`` when the solution offers nothing to
perturb that way (no number to change, one step only...).

Step labels: steps before the first wrong one are correct (0), the first wrong
one is 1; later steps are 0 when the perturbation leaves them untouched and
still valid (duplicate, insert), otherwise unknown (``None``): they may build on
the error.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from reasoning_metrics.diagnostics.edits import TextEdit, change_number, change_operation, negate

KINDS = ("duplicate", "remove", "swap", "negate", "hallucinate", "number", "operation", "shuffle")


@dataclass(frozen=True)
class Perturbation:
    """A perturbed solution and its labels."""

    kind: str
    steps: list[str]
    first_error: int
    step_labels: list[int | None]
    change: dict[str, Any] = field(default_factory=dict)
    """What changed, in terms of the *perturbed* steps unless the key says ``original``."""


def _labels(n: int, first: int, later: int | None) -> list[int | None]:
    return [0] * first + [1] + [later] * (n - first - 1)


def duplicate(steps: Sequence[str], rng: random.Random, **_: Any) -> Perturbation | None:
    """Repeat step k right after itself; the copy is the first wrong (redundant) step."""
    k = rng.randrange(len(steps))
    new = [*steps[: k + 1], steps[k], *steps[k + 1 :]]
    return Perturbation("duplicate", new, k + 1, _labels(len(new), k + 1, 0), {"step": k + 1, "copy_of": k})


def remove(steps: Sequence[str], rng: random.Random, **_: Any) -> Perturbation | None:
    """Drop step k (never the last); the step that now follows the gap is the first wrong one."""
    if len(steps) < 2:
        return None
    k = rng.randrange(len(steps) - 1)
    new = [*steps[:k], *steps[k + 1 :]]
    return Perturbation(
        "remove", new, k, _labels(len(new), k, None), {"step": k, "removed_original": k, "text": steps[k]}
    )


def swap(steps: Sequence[str], rng: random.Random, **_: Any) -> Perturbation | None:
    """Exchange two different steps i < j; step i (now the later one's text) is the first wrong one."""
    pairs = [(i, j) for i in range(len(steps)) for j in range(i + 1, len(steps)) if steps[i] != steps[j]]
    if not pairs:
        return None
    i, j = rng.choice(pairs)
    new = list(steps)
    new[i], new[j] = new[j], new[i]
    return Perturbation("swap", new, i, _labels(len(new), i, None), {"step": i, "steps": [i, j]})


def _edit_one(
    kind: str, steps: Sequence[str], rng: random.Random, edit: Callable[[str], TextEdit | None]
) -> Perturbation | None:
    """Apply ``edit`` to one step chosen at random among those it can edit."""
    candidates = [(k, e) for k, step in enumerate(steps) if (e := edit(step)) is not None]
    if not candidates:
        return None
    k, change = rng.choice(candidates)
    new = list(steps)
    new[k] = change.text
    details = {"step": k, "position": change.position, "before": change.before, "after": change.after}
    return Perturbation(kind, new, k, _labels(len(new), k, None), details)


def negate_step(steps: Sequence[str], rng: random.Random, *, lang: str = "en", **_: Any) -> Perturbation | None:
    """Negate one step (Chinese or English wording, else its first ``=``)."""
    return _edit_one("negate", steps, rng, lambda step: negate(step, lang))


def number(steps: Sequence[str], rng: random.Random, **_: Any) -> Perturbation | None:
    """Change one number of one step."""
    seeds = [rng.random() for _ in steps]  # one draw per step, so a step's edit does not depend on the others
    edits = iter(seeds)
    return _edit_one("number", steps, rng, lambda step: change_number(step, random.Random(next(edits))))


def operation(steps: Sequence[str], rng: random.Random, **_: Any) -> Perturbation | None:
    """Swap one arithmetic operator of one step (+ and -, × and ÷)."""
    seeds = iter([rng.random() for _ in steps])
    return _edit_one("operation", steps, rng, lambda step: change_operation(step, random.Random(next(seeds))))


def hallucinate(steps: Sequence[str], rng: random.Random, *, pool: Sequence[str] = (), **_: Any) -> Perturbation | None:
    """Insert a step of another solution (``pool``) before one of the steps; it is the first wrong one."""
    foreign = [s for s in pool if s not in steps]
    if not foreign:
        return None
    k = rng.randrange(len(steps))
    inserted = rng.choice(foreign)
    new = [*steps[:k], inserted, *steps[k:]]
    return Perturbation("hallucinate", new, k, _labels(len(new), k, 0), {"step": k, "text": inserted})


def shuffle(steps: Sequence[str], rng: random.Random, **_: Any) -> Perturbation | None:
    """Shuffle all steps (into a different order); the first position that changed is the first wrong one."""
    if len(set(steps)) < 2:
        return None
    order = list(range(len(steps)))
    while [steps[i] for i in order] == list(steps):
        rng.shuffle(order)
    new = [steps[i] for i in order]
    first = next(i for i in range(len(steps)) if new[i] != steps[i])
    return Perturbation("shuffle", new, first, _labels(len(new), first, None), {"step": first, "order": order})


PERTURBATIONS: dict[str, Callable[..., Perturbation | None]] = {
    "duplicate": duplicate,
    "remove": remove,
    "swap": swap,
    "negate": negate_step,
    "hallucinate": hallucinate,
    "number": number,
    "operation": operation,
    "shuffle": shuffle,
}
"""Kind -> perturbation; each is called as ``f(steps, rng, lang=..., pool=...)``."""
