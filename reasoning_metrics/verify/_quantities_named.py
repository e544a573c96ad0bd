"""The quantities a text binds to names: ``x = 3``, ``m - n = 8``, ``速度为5m/s``, ``共有28种``, ``x > 3``.

Three readings, all of parsed claims or one regular expression each (linear in the text):

* a *binding* is an ``=`` claim of :mod:`.rules.arithmetic` between a side with variables and a side
  without (``x = 3``, ``m - n + √17 = 4 - √17 + 4 + √17``): the variable side, rendered, is its key;
* a *named value* is a Chinese noun phrase given a number (``速度为5m/s``, ``小明的速度是100÷20=5m/s``,
  the last number of a chain): its key is the phrase after its last function word (的, 则, 所以...),
  or, for a total (``共有28种``, ``一共握手28次``), ``共`` and the measure word;
* a *relation* is ``x < 3``, ``3 ≤ x`` or a chain ``2 < x < 5`` between one variable and a number.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from reasoning_metrics.verify._expr import Node, Unevaluable, evaluate
from reasoning_metrics.verify._plain import NUM, plain
from reasoning_metrics.verify._units import SI_LETTERS
from reasoning_metrics.verify.rules.arithmetic import ClaimCheck, StepCheck

_NAMED = re.compile(
    r"([\u4e00-\u9fff]{1,12})\s*(?:为|是|等于|=|:)\s*([\d\s×÷*/+\-()^.]{0,200}?=\s*)?"
    rf"({NUM})(?![\d.]|\([\dA-Za-z(])(?!\s*[×÷*/+\-^])\s*\(?\s*([A-Za-z][A-Za-z/^\d]{{0,7}}|[\u4e00-\u9fff]{{1,2}}(?:/[\u4e00-\u9fff]{{1,2}})?)?"
)
"""The calculation before the value is one bounded character class: no nested repetition to backtrack."""
_TOTAL = re.compile(
    rf"(?:共|一共|总共)(?:有|需|要|可|能|可以|需要|握手|进行|比赛|组成|得到)*了?\s*({NUM})\s*([种个次人条场组份张本辆天元])"
)
_CUT = re.compile(r".*[的则故即得知以此么且又而所因解设令有中与和及就当时从对]")
_NOT_NAMES = {"答案", "结果", "故答案", "所以答案", "原式", "原方程", "方程", "上式", "选", "值", "其中", "已知", "它"}
_VARIABLE = r"[A-Za-z](?:_[A-Za-z0-9]+)?"
_RELATIONS = {"<": "<", ">": ">", "≤": "≤", "≥": "≥"}
_FLIP = {"<": ">", ">": "<", "≤": "≥", "≥": "≤"}
_RELATION = re.compile(rf"(?<![A-Za-z0-9_.])({_VARIABLE}|{NUM})\s*([<>≤≥])\s*(?=({_VARIABLE}|{NUM})(?![A-Za-z0-9_.(]))")


@dataclass(frozen=True)
class Binding:
    """A value given to a variable or an expression in variables."""

    key: str
    value: float
    variables: frozenset[str]


@dataclass(frozen=True)
class Named:
    """A value given to a named quantity (``速度``), with the unit written after it (may be empty)."""

    key: str
    value: float
    unit: str


@dataclass(frozen=True)
class Relation:
    """``variable relation bound``, with ``relation`` one of ``< > ≤ ≥``."""

    variable: str
    relation: str
    bound: float

    def disjoint(self, other: Relation) -> bool:
        """Whether no value satisfies both (the same variable assumed)."""
        upper_self, upper_other = self.relation in "<≤", other.relation in "<≤"
        if upper_self == upper_other:
            return False
        upper, lower = (self, other) if upper_self else (other, self)
        strict = upper.relation == "<" or lower.relation == ">"
        return upper.bound < lower.bound or (strict and upper.bound == lower.bound)

    def within(self, other: Relation) -> bool:
        """Whether every value satisfying this satisfies ``other``."""
        if (self.relation in "<≤") != (other.relation in "<≤"):
            return False
        if self.bound == other.bound:
            return self.relation == other.relation or other.relation in "≤≥"
        return self.bound < other.bound if self.relation in "<≤" else self.bound > other.bound


def bindings(check: StepCheck) -> Iterator[Binding]:
    """The bindings of a step's claims (see the module doc); the head of a chain is bound to the value the
    chain reaches with its units dropped (``v = s/t = 100m/20s = 5m/s`` binds ``v`` to 5)."""
    head: Node | None = None
    for c in check.claims:
        if c.claim is None or c.relation not in ("=", "≈"):
            head = None
            continue
        if not c.claim.chained:
            head = c.claim.left
        for named, valued in ((c.claim.left, c.claim.right), (c.claim.right, c.claim.left)):
            if named.has_variable() and not valued.has_variable() and not _unit_reading(named):
                with contextlib.suppress(Unevaluable, OverflowError):
                    yield Binding(_key(named), evaluate(valued), frozenset(named.variables()))
                break
        else:
            if _chain_value(c, head) and head is not None and c.right_value is not None:
                yield Binding(_key(head), c.right_value, frozenset(head.variables()))


def _chain_value(c: ClaimCheck, head: Node | None) -> bool:
    """Whether ``c`` ends a physics chain whose head names a quantity: ``100m/20s = 5m/s`` after ``v = s/t``."""
    if c.claim is None or not c.claim.chained or head is None or c.right_value is None:
        return False
    return c.note == "units dropped" and head.has_variable() and not _unit_reading(head)


def _unit_reading(node: Node) -> bool:
    """``5m/s``: a number times unit letters is a physics quantity, not an expression in variables."""
    return bool(node.literals()) and node.variables() <= SI_LETTERS


def _key(node: Node) -> str:
    return node.render().replace(" ", "")


def named_values(text: str) -> Iterator[Named]:
    """The named values of a text (see the module doc)."""
    text = plain(text)
    for match in _NAMED.finditer(text):
        key = _CUT.sub("", match.group(1)).rstrip("为是")
        if len(key) >= 2 and key not in _NOT_NAMES and "答案" not in key and not key.endswith("选"):
            yield Named(key, float(match.group(3)), (match.group(4) or "").strip())
    for match in _TOTAL.finditer(text):
        yield Named(f"共{match.group(2)}", float(match.group(1)), match.group(2))


def relations(text: str) -> Iterator[Relation]:
    """The relations between one variable and a number that a text states."""
    text = plain(text)
    for match in _RELATION.finditer(text):
        left, relation, right = match.group(1), match.group(2), match.group(3)
        left_var, right_var = re.fullmatch(_VARIABLE, left), re.fullmatch(_VARIABLE, right)
        if left_var and not right_var:
            yield Relation(left, relation, float(right))
        elif right_var and not left_var:
            yield Relation(right, _FLIP[relation], float(left))


def keys_of(key: str) -> Iterator[str]:
    """``key`` and its suffixes of two characters or more: ``小明的速度`` is found under ``速度``."""
    for start in range(max(0, len(key) - 12), len(key) - 1):
        yield key[start:]


__all__ = ["Binding", "Named", "Relation", "bindings", "keys_of", "named_values", "relations"]
