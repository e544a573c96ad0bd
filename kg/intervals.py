"""The Wilson interval every rate is quoted with (``56/146 = 38 % (31-47 %)``), on the lowest floor so
that the report's aggregates and the meta-evaluation share one copy."""

from __future__ import annotations

import math

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


def rate_text(successes: int, n: int) -> str:
    """A rate with its count and 95 % Wilson interval, ``56/146 = 38 % (31-47 %)``; ``0/0`` alone when empty.

    Whole percents, except that a share strictly between 0 and 1 is never printed as 0 % or 100 %:
    ``1/200 = 0.5 % (0.1-3 %)``, ``199/200 = 99.5 % (97-99.9 %)``."""
    if n <= 0:
        return f"{successes}/{n}"
    lo, hi = wilson_interval(successes, n)
    return f"{successes}/{n} = {percent(successes / n)} % ({percent(lo)}-{percent(hi)} %)"


def percent(share: float, digits: int = 0) -> str:
    """``share`` x 100 with ``digits`` decimals, or as many more (up to 3) as keep a share strictly between 0 and 1
    off 0 and 100: 0.005 prints 0.5, not 0 (round half to even), and 0.9995 prints 99.95, not 100."""
    while 0 < share < 1 and digits < 3 and float(f"{100 * share:.{digits}f}") in (0.0, 100.0):
        digits += 1
    return f"{100 * share:.{digits}f}"
