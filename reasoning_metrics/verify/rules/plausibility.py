"""Answers that cannot be right whatever the reasoning: a count that is not a whole number.

"How many students ...?" answered with 12.5 is wrong before any step is read. Only
counts of things are judged: "how many hours / miles / dollars" may well be 2.5, so a
question whose counted noun is a unit of measure (:data:`MEASURES`) is left alone, and so
is any question that is not asking how many. Chinese: 多少个/人/本... and 几个/人/本....
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from reasoning_metrics.verify._tolerance import is_whole
from reasoning_metrics.verify.rules.arithmetic import StepCheck

MEASURES = frozenset(
    {
        "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month",
        "months", "year", "years", "decade", "decades", "mile", "miles", "foot", "feet", "inch", "inches", "yard",
        "yards", "meter", "meters", "metre", "metres", "kilometer", "kilometers", "km", "cm", "mm", "pound",
        "pounds", "ounce", "ounces", "ton", "tons", "gram", "grams", "kilogram", "kilograms", "kg", "gallon",
        "gallons", "liter", "liters", "litre", "litres", "quart", "quarts", "pint", "pints", "cup", "cups",
        "teaspoon", "teaspoons", "tablespoon", "tablespoons", "degree", "degrees", "dollar", "dollars", "cent",
        "cents", "euro", "euros", "percent", "times", "square", "cubic", "more", "fewer", "less", "calories",
        "acres",
    }
)  # fmt: skip
"""Nouns after "how many" that measure rather than count."""
_HOW_MANY = re.compile(r"\bhow many\s+([a-z]+)", re.IGNORECASE)
_ZH_COUNT = re.compile(
    r"(?:多少|几)(?:个|人|名|位|只|头|匹|条|本|辆|台|张|块|棵|朵|支|件|箱|袋|盒|瓶|页|所|间|座|道|次)"
)


def asks_for_a_count(question: str) -> bool:
    """Whether ``question`` asks how many things (not how much of a measure) there are."""
    if _ZH_COUNT.search(question):
        return True
    return any(m.group(1).lower() not in MEASURES for m in _HOW_MANY.finditer(question))


def not_whole_answer(question: str, checks: Sequence[StepCheck]) -> float | None:
    """The solution's last stated answer, when the question asks for a count and it is not whole."""
    answers = [value for check in checks for value in check.answers]
    if not answers or not asks_for_a_count(question):
        return None
    answer = answers[-1]
    return answer if math.isfinite(answer) and not is_whole(answer) else None
