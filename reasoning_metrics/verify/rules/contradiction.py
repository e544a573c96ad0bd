"""Step-versus-context contradiction: NLI of each step against the question and the steps before it.

For step ``i`` the premises are the question's sentences (split as ``k12eval score`` splits a
source) and steps ``0..i-1``;
its score is the largest P(contradiction) over them. The earliest step whose
score reaches :data:`CONTRADICTION_THRESHOLD` is where the chain first
contradicts its context. All pairs of all solutions go to the model in batches.
Without an NLI model there is no score (callers report the detector unavailable).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.protocols import NLI_COLUMNS, NLIModel
from reasoning_metrics.split import split_steps

CONTRADICTION_THRESHOLD = 0.5
_CONTRADICTION = NLI_COLUMNS.index("contradiction")


def step_contradictions(
    solutions: Sequence[tuple[str, Sequence[str]]], nli: NLIModel, batch_size: int = 64
) -> list[list[float]]:
    """Per solution ``(question, steps)``, each step's largest P(contradiction) against its context."""
    pairs: list[tuple[str, str]] = []
    shape: list[list[int]] = []
    for question, steps in solutions:
        premises = split_steps(question) or [question]
        counts = []
        for i, step in enumerate(steps):
            context = [*premises, *steps[:i]]
            pairs += [(premise, step) for premise in context]
            counts.append(len(context))
        shape.append(counts)
    chunks = [nli.nli(pairs[i : i + batch_size]) for i in range(0, len(pairs), batch_size)]
    probs = np.concatenate(chunks)[:, _CONTRADICTION] if chunks else np.zeros(0)
    out, offset = [], 0
    for counts in shape:
        scores = []
        for count in counts:
            scores.append(float(probs[offset : offset + count].max(initial=0.0)))
            offset += count
        out.append(scores)
    return out


def first_contradiction(scores: Sequence[float], threshold: float = CONTRADICTION_THRESHOLD) -> int:
    """Index of the earliest step whose contradiction reaches ``threshold``, or -1."""
    return next((i for i, p in enumerate(scores) if p >= threshold), -1)
