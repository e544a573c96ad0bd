"""Unit conversions a step states, checked: ``1km = 1000m``, ``2小时 = 120分钟``, ``1t = 10^3kg = 10^6g``.

Two quantities of the same dimension (length, area, volume, mass, time, speed) joined by ``=`` or
``≈`` must be the same amount. The right-hand number may be the true value rounded at its own
precision (``1km/h = 0.28m/s``); ``≈`` allows 2 %. Units are read only right after a number and
only from the table below, so ``3m = 6`` (algebra) or ``x = 2h`` compares nothing.
"""

from __future__ import annotations

import itertools
import re

from reasoning_metrics.verify._plain import NUM, START, decimals, plain
from reasoning_metrics.verify.rules.facts import Fact

_LENGTH = {"km": 1000, "千米": 1000, "公里": 1000, "m": 1, "米": 1, "dm": 0.1, "分米": 0.1, "cm": 0.01,
           "厘米": 0.01, "mm": 0.001, "毫米": 0.001}  # fmt: skip
_TIME = {"h": 3600, "小时": 3600, "min": 60, "分钟": 60, "s": 1, "秒": 1, "天": 86400}
_MASS = {"t": 1e6, "吨": 1e6, "kg": 1000, "千克": 1000, "公斤": 1000, "g": 1, "克": 1, "mg": 0.001, "毫克": 0.001}
_AREA = {"km^2": 1e6, "平方千米": 1e6, "公顷": 1e4, "m^2": 1, "平方米": 1, "dm^2": 0.01, "平方分米": 0.01,
         "cm^2": 1e-4, "平方厘米": 1e-4, "mm^2": 1e-6, "平方毫米": 1e-6}  # fmt: skip
_VOLUME = {"m^3": 1, "立方米": 1, "dm^3": 1e-3, "立方分米": 1e-3, "L": 1e-3, "升": 1e-3, "cm^3": 1e-6,
           "立方厘米": 1e-6, "mL": 1e-6, "ml": 1e-6, "毫升": 1e-6}  # fmt: skip
_SPEED = {"km/h": 1000 / 3600, "m/s": 1, "m/min": 1 / 60, "km/min": 1000 / 60, "千米/时": 1000 / 3600,
          "千米/小时": 1000 / 3600, "米/秒": 1, "米/分": 1 / 60}  # fmt: skip
UNITS: dict[str, tuple[str, float]] = {
    unit: (dimension, factor)
    for dimension, table in (
        ("speed", _SPEED), ("area", _AREA), ("volume", _VOLUME), ("length", _LENGTH), ("time", _TIME), ("mass", _MASS)
    )
    for unit, factor in table.items()
}  # fmt: skip
"""Unit -> (dimension, its size in the dimension's base unit)."""

_UNIT = "|".join(re.escape(u) for u in sorted(UNITS, key=len, reverse=True))
_AMOUNT = rf"{START}({NUM})(?:\s*×\s*10\^(-?\d{{1,3}}))?|{START}10\^(-?\d{{1,3}})"
_QUANTITY = re.compile(rf"(?:{_AMOUNT})\s*({_UNIT})(?![A-Za-z^])")
_JOIN = re.compile(r"\s*(=|≈)\s*$")


def stated_conversions(text: str) -> list[Fact]:
    """Every conversion between two quantities that ``text`` states, checked (see the module doc)."""
    text = plain(text)
    quantities = list(_QUANTITY.finditer(text))
    found = []
    for left, right in itertools.pairwise(quantities):
        join = _JOIN.match(text[left.end() : right.start()])
        if join is None or len(text[left.end() : right.start()]) > 8:
            continue
        fact = _compare(left, right, join.group(1) == "≈")
        if fact is not None:
            found.append(fact)
    return found


def _amount(match: re.Match[str]) -> tuple[float, int] | None:
    """The amount of a quantity and the decimals its mantissa is written with."""
    mantissa, exponent, power = match.group(1), match.group(2), match.group(3)
    try:
        if power is not None:
            return 10.0 ** int(power), 0
        value = float(mantissa) * (10.0 ** int(exponent) if exponent else 1)
    except OverflowError:
        return None
    return value, decimals(mantissa) - (int(exponent) if exponent else 0)


def _compare(left: re.Match[str], right: re.Match[str], approximate: bool) -> Fact | None:
    (dim_a, size_a), (dim_b, size_b) = UNITS[left.group(4)], UNITS[right.group(4)]
    a, b = _amount(left), _amount(right)
    if dim_a != dim_b or a is None or b is None or left.group(4) == right.group(4):
        return None
    expected = a[0] * size_a / size_b
    slack = 0.02 * abs(expected) if approximate else 0.5 * 10.0 ** -b[1] if b[1] > 0 else 0.0
    holds = abs(expected - b[0]) <= slack + 1e-9 * max(1.0, abs(expected))
    statement = f"{left.group(0).strip()} {'≈' if approximate else '='} {right.group(0).strip()}"
    return Fact(statement, holds, f"{left.group(0).strip()} = {expected:.6g}{right.group(4)}")
