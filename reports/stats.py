"""Small statistics used by the aggregates: Wilson intervals, rank metrics, the exact McNemar test."""

from __future__ import annotations

import math
from collections.abc import Sequence

from kg.intervals import Z95 as Z95
from kg.intervals import wilson_interval as wilson_interval


def rank_of_gold(option_scores: dict[str, float], gold: str) -> int | None:
    """Rank of ``gold`` among options scored by log-probability, 1 = most probable.

    Ties count against the gold option (pessimistic), so a model that scores every
    option the same never gets Hit@1. ``None`` if the gold option was not scored.
    """
    if gold not in option_scores:
        return None
    target = option_scores[gold]
    return 1 + sum(1 for label, score in option_scores.items() if label != gold and score >= target)


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (a right/b wrong, a wrong/b right)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (``ddof=1``); ``nan`` where undefined."""
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = sum(values) / n
    if n == 1:
        return mean, math.nan
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
