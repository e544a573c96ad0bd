"""Where a step's numbers come from: the question, earlier steps, or nowhere.

Two checks, both reference-free:

* an *unsupported operand* is a number a calculation starts from, or a stated
  final answer (``\\boxed{18}``, "the answer is 18", 答案是18), that is not an
  everyday constant (:data:`CONSTANTS`), not a result computed in the same step,
  and neither in the question or an earlier step nor a conversion or complement
  of such a number (``75 / 100``, ``3 × 60``, ``1 - 0.75``, ``100 - 25``), nor the
  value of a calculation written, unevaluated, in an earlier step (``\\sqrt{(4-1)^2 + (6-2)^2}``
  supports a later ``\\sqrt{9 + 16}``): it came from nowhere, which is how a misread,
  invented or premature quantity shows;
* an *unused given number* is a number written with digits in the question that
  no step mentions: the solution ignored part of the data.
"""

from __future__ import annotations

import bisect
import contextlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reasoning_metrics.guard import tick
from reasoning_metrics.verify._expr import Node, Unevaluable, evaluate
from reasoning_metrics.verify._lexer import tokenize
from reasoning_metrics.verify._normalize import normalize
from reasoning_metrics.verify._tolerance import SAME_NUMBER
from reasoning_metrics.verify.rules.arithmetic import ClaimCheck, StepCheck

CONSTANTS = (0.5, 1, 2, 10, 100, 1000, 7, 12, 24, 30, 52, 60, 365, 3600)
"""Numbers a solution may use without a source: halves, doubling, powers of ten, calendar and clock units."""

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
    "million": 1_000_000, "dozen": 12, "dozens": 12, "half": 0.5, "halves": 2, "twice": 2, "double": 2,
    "triple": 3, "thrice": 3, "quarter": 0.25, "quarters": 4, "quarterly": 4, "third": 3, "thirds": 3,
    "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5, "tenth": 10, "once": 1, "pair": 2, "couple": 2,
    "weekdays": 5, "weekend": 2, "biweekly": 2, "annually": 1, "monthly": 12, "weekly": 52, "daily": 365,
}  # fmt: skip
_WORD = re.compile(r"[a-z]+")
_COMPOUND = re.compile(
    r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[- ](one|two|three|four|five|six|seven|eight|nine)\b"
)
"""``forty-two``, ``twenty one``."""


@dataclass(frozen=True)
class UnsupportedOperand:
    """A number a calculation in the step starts from, with no source before it."""

    value: float
    expression: str
    """The claim it appears in."""


def given_numbers(text: str) -> set[float]:
    """Numbers in a question: numerals (Arabic or Chinese), percentages both ways, English number words."""
    values = {float(t.value) for t in tokenize(normalize(text)) if t.value is not None}
    values |= {v / 100 for v in values}
    lowered = text.lower()
    values |= {float(_NUMBER_WORDS[w]) for w in _WORD.findall(lowered) if w in _NUMBER_WORDS}
    values |= {float(_NUMBER_WORDS[t] + _NUMBER_WORDS[u]) for t, u in _COMPOUND.findall(lowered)}
    return values


def _expand(known: Iterable[float]) -> list[float]:
    """``known`` plus its unit conversions (``× 60``, ``/ 100``), reciprocals and complements
    (``1 - p``, ``100 - p``, ``1 + p``): the steps a solution takes without writing them down."""
    out: set[float] = set()
    for a in known:
        out.update((a, 1 - a, 1 + a, 100 - a, 100 + a))
        if a:
            out.add(1 / a)
        for c in CONSTANTS:
            out.update((a * c, a / c))
    return sorted(out)


def _contains(sorted_values: list[float], value: float) -> bool:
    tol = SAME_NUMBER * max(1.0, abs(value))
    i = bisect.bisect_left(sorted_values, value - tol)
    return i < len(sorted_values) and sorted_values[i] <= value + tol


class _Pool:
    """A growing set of numbers asked whether it holds one within tolerance, in O(log² n).

    Sorted runs whose sizes at least halve from one to the next (a logarithmic method): adding a
    batch merges only runs of similar size, so a chain of n steps costs O(n log n) in all, where
    re-sorting everything known at every step cost O(n²) (4,000 steps: minutes).
    """

    def __init__(self) -> None:
        self._runs: list[list[float]] = []
        self._seen: set[float] = set()

    def add(self, values: Iterable[float]) -> None:
        """Add ``values`` with their :func:`_expand` conversions (each value is expanded once)."""
        new = {v for v in values if v not in self._seen}
        if not new:
            return
        self._seen |= new
        run = _expand(new)
        while self._runs and len(self._runs[-1]) <= 2 * len(run):
            run = sorted(self._runs.pop() + run)  # two sorted runs: timsort merges them in linear time
        self._runs.append(run)

    def __contains__(self, value: float) -> bool:
        return any(_contains(run, value) for run in self._runs)


def unsupported_operands(question: str, checks: Sequence[StepCheck]) -> list[list[UnsupportedOperand]]:
    """Per step, the operands of its calculations that have no source (see the module doc)."""
    known = _Pool()
    known.add(given_numbers(question))
    found: list[list[UnsupportedOperand]] = []
    for check in checks:
        tick()
        results = {v for c in check.claims for v in (c.left_value, c.right_value) if v is not None}
        local = sorted({*results, *CONSTANTS})
        step: list[UnsupportedOperand] = []
        written: list[float] = []
        """Numbers of the step's claims so far: ``31 + O = 50`` supports a later ``50 - 31``."""
        for claim in check.claims:
            for value in claim.operands:
                if _is_new(value, known, local, written, step):
                    step.append(UnsupportedOperand(value, claim.expression))
            written = sorted({*written, *_literals(claim)})
        for value in check.answers:
            if _is_new(value, known, local, written, step):
                step.append(UnsupportedOperand(value, f"the answer {value:g}"))
        found.append(step)
        known.add({*check.mentioned, *results, *_written_values(check)})
    return found


def _is_new(
    value: float, known: _Pool, local: list[float], written: list[float], found: list[UnsupportedOperand]
) -> bool:
    """Unsupported by ``known``, ``local`` and ``written`` (both sorted), and not already ``found`` in the step."""
    return (
        value not in known
        and not _contains(local, value)
        and not _contains(written, value)
        and all(u.value != value for u in found)
    )


def _literals(claim: ClaimCheck) -> set[float]:
    sides = (claim.claim.left, claim.claim.right) if claim.claim is not None else ()
    return {float(n.value) for side in sides for n in side.literals() if n.value is not None}


def _written_values(check: StepCheck) -> set[float]:
    """Values of the ground calculations inside the step's claims (``(4-1)^2`` -> 3 and 9), evaluated or not."""
    values: set[float] = set()
    stack: list[Node] = [side for c in check.claims if c.claim is not None for side in (c.claim.left, c.claim.right)]
    while stack:
        node = stack.pop()
        stack.extend(node.args)
        if node.is_operation() and not node.has_variable():
            with contextlib.suppress(Unevaluable):  # too large, division by zero: no value to support anything
                values.add(evaluate(node))
    return {v for v in values if math.isfinite(v)}


def unused_given_numbers(question: str, checks: Sequence[StepCheck]) -> list[float]:
    """Numbers written with digits in the question that no step mentions, in any unit of a percentage."""
    given = {float(t.value) for t in tokenize(normalize(question)) if t.value is not None}
    mentioned = sorted({v for check in checks for m in check.mentioned for v in (m, m * 100, m / 100)})
    return sorted(v for v in given if v not in CONSTANTS and not _contains(mentioned, v) and not math.isnan(v))
