"""Small statistics used by the aggregates: Wilson intervals, rank metrics, the exact McNemar test."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion; ``(nan, nan)`` when ``n`` is 0.

    Unlike the normal approximation it stays inside [0, 1] and is honest for
    small ``n``: one right answer out of one gives (0.21, 1.0), not (1.0, 1.0).
    """
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, {n}], got {successes}")
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # In exact arithmetic lo <= p <= hi, with lo = 0 at 0/n and hi = 1 at n/n; floating point
    # misses those by an ulp (10/10 gave hi = 0.99999...), which made error bars negative.
    lo = 0.0 if successes == 0 else min(p, max(0.0, centre - half))
    hi = 1.0 if successes == n else max(p, min(1.0, centre + half))
    return lo, hi


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
