"""When a number written in a solution counts as the value it stands for: one rule for every detector.

* Two computed values are equal when they agree to floating-point noise (:data:`FLOAT_NOISE`,
  relative).
* Two numbers written in a solution are the same number when they agree to six significant digits
  (:data:`SAME_NUMBER`, relative): ``0.333333`` is ``1/3`` when looking for where a number came from.
* A number written with ``d`` decimals is right when the exact value rounds to it at those digits
  (四舍五入): a slack of half a unit of its last place (:func:`decimal_slack`), unless the exact value
  already has at most ``d`` decimals (:func:`exact_at`), where no slack is due. ``0.5^2 = 1`` is wrong
  (0.25 rounds to 0), ``1/3 ≈ 0.33`` and ``π = 3.14`` are right. Raising or cutting at those digits
  (进一法, 去尾法: a slack of a whole unit) counts only where the step says so, or, for a quotient, an earlier step or the question,
  or where an ``≈`` of a quotient gives a whole number of things (``25 ÷ 1.5 ≈ 16（个）``; the rule is
  :func:`reasoning_metrics.verify.rules.arithmetic.counts_things`).
* Numbers carried from earlier steps with two or more decimals carry their rounding, half a unit of
  their last place relative to their size (:func:`carried_error`); through a calculation it grows
  by :data:`CARRIED_GROWTH` (:func:`carried_slack`).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Protocol

FLOAT_NOISE = 1e-9
"""Relative difference below which two computed values are the same."""
SAME_NUMBER = 1e-6
"""Relative difference below which two written numbers are the same number."""
CARRIED_GROWTH = 1.5
"""How much a relative rounding error may grow through one calculation."""


class Written(Protocol):
    """A number as written: its value (``None`` when it has none) and its decimals."""

    @property
    def value(self) -> Fraction | None: ...

    @property
    def decimals(self) -> int: ...


def decimal_slack(places: int, *, directed: bool = False) -> float:
    """How far a value may be from a number written with ``places`` decimals.

    Rounded to the nearest (the default): half a unit of the last place, both neighbours of a value
    exactly halfway included (0.125 is 0.12 or 0.13). ``directed`` (raised or cut, 进一法 / 去尾法): a
    hair less than a whole unit, so that a value a whole unit away stays wrong.
    """
    unit = 10.0**-places
    return unit * (1 - FLOAT_NOISE) if directed else unit * (0.5 + FLOAT_NOISE)


def exact_at(value: float, places: int) -> bool:
    """``value`` has at most ``places`` decimals (to floating-point noise): writing it so needs no rounding."""
    scaled = value * 10**places
    return abs(scaled - round(scaled)) <= FLOAT_NOISE * max(1.0, abs(scaled))


def carried_error(numbers: Iterable[Written]) -> float:
    """The relative rounding error the written numbers with two or more decimals bring into a calculation."""
    return sum(0.5 * 10.0**-n.decimals / abs(float(n.value)) for n in numbers if n.value and n.decimals >= 2)


def carried_slack(relative_error: float, value: float) -> float:
    """The absolute slack a result of size ``value`` gets for ``relative_error`` carried into it."""
    return CARRIED_GROWTH * relative_error * abs(value)


def is_whole(value: float) -> bool:
    """``value`` is a whole number, to floating-point noise."""
    return abs(value - round(value)) <= FLOAT_NOISE
