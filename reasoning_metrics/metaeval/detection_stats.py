"""The statistics of the meta-evaluation: pure functions of score and label arrays.

* :func:`auroc`: probability that a random erroneous item scores above a random
  correct one, ties counting one half (the Mann-Whitney U statistic over n+ n-);
* :func:`somers_d`: Somers' D of the score given the binary label,
  (concordant - discordant) / (n+ n-), which equals ``2 * AUROC - 1``;
* :func:`processbench_scores`: ProcessBench's protocol: accuracy of the predicted
  first wrong step on erroneous solutions, accuracy of "no error" on correct
  ones, and their harmonic mean (F1);
* :func:`bootstrap_ci`: a seeded percentile bootstrap over items.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Area under the ROC curve of ``scores`` for ``labels``; ``None`` unless both classes occur."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    _, first, counts = np.unique(s[order], return_index=True, return_counts=True)
    ranks = np.empty(len(s), dtype=float)
    ranks[order] = np.repeat(first + (counts - 1) / 2 + 1, counts)  # tied values share their average rank
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def somers_d(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Somers' D of ``scores`` given the binary ``labels``: (concordant - discordant) / mixed pairs."""
    area = auroc(scores, labels)
    return None if area is None else 2 * area - 1


@dataclass(frozen=True)
class ProcessBenchScores:
    """ProcessBench's step-level protocol."""

    acc_error: float | None
    """Share of erroneous solutions whose first wrong step is predicted exactly."""
    acc_correct: float | None
    """Share of correct solutions predicted to have no error (-1)."""
    f1: float | None
    """Harmonic mean of the two."""
    n_error: int
    n_correct: int


def processbench_scores(predictions: Sequence[int | None], targets: Sequence[int | None]) -> ProcessBenchScores:
    """Score predicted first wrong steps (-1 none) against targets; ``None`` targets are left out.

    A ``None`` prediction (no answer) matches nothing: it counts as wrong on both kinds of solution.
    """
    pairs = [(p, t) for p, t in zip(predictions, targets, strict=True) if t is not None]
    errors = [p == t for p, t in pairs if t >= 0]
    correct = [p == -1 for p, t in pairs if t == -1]
    acc_error = sum(errors) / len(errors) if errors else None
    acc_correct = sum(correct) / len(correct) if correct else None
    f1 = None
    if acc_error is not None and acc_correct is not None:
        f1 = 0.0 if acc_error + acc_correct == 0 else 2 * acc_error * acc_correct / (acc_error + acc_correct)
    return ProcessBenchScores(acc_error, acc_correct, f1, len(errors), len(correct))


def bootstrap_ci(
    statistic: Callable[[np.ndarray], float | None],
    n: int,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile interval of ``statistic(indices)`` over ``n_boot`` resamples of ``range(n)``.

    Resamples where the statistic is undefined (``None``, e.g. one class missing)
    are skipped; ``None`` if fewer than half of them are defined.
    """
    if n == 0 or n_boot <= 0:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        value = statistic(rng.integers(0, n, size=n))
        if value is not None:
            values.append(value)
    if len(values) < n_boot / 2:
        return None
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)
