"""Facts about numbers a step states in words, checked with sympy: prime, even, divisible, integer, square.

Read in Chinese and English (``10是质数``, ``2、3和5都是质数``, ``15不是偶数``, ``12能被4整除``,
``4能整除12``, ``12是3的倍数``, ``3是12的因数``, ``3.5是整数``, ``16是完全平方数``, ``15 is odd``,
``91 is not prime``, ``12 is divisible by 5``, ``9 is a perfect square``). Only numbers written as
such are read: a statement about a variable or a calculation (``n是质数``, ``2k+1是奇数``) is not
a fact about a number; a hypothesis (若, 假设, if, suppose) or a question (吗, 还是) states nothing.
Numbers reach sympy as integers built here, never as text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from reasoning_metrics.verify._plain import NUM, START, number, plain

MAX_PRIME_DIGITS = 30
"""Primality is not asked of longer numbers (sympy's test is fast, but there is no need)."""

_ITEM = rf"{START}{NUM}(?:/\d+)?"
_ZH_LIST = rf"({_ITEM}(?:\s*[、和与及]\s*{_ITEM}){{0,12}})"
"""At most 13 numbers: a longer list is rescanned from each of its items when nothing follows it."""
_ZH_PROPERTY = re.compile(
    _ZH_LIST
    + r"\s*(?:都|均|也|一定|必|必定)?\s*(不|不是|一定不|一定不是)?\s*(?:是|为)\s*(?:1个)?\s*"
    + r"(质数|素数|合数|偶数|奇数|(?<![正负非])整数|完全平方数|平方数)(?![的吗倍或]|还是|解|部分)"
)
_ZH_DIVIDED = re.compile(rf"({_ITEM})\s*(不)?\s*能被\s*({_ITEM})\s*整除")
_ZH_DIVIDES = re.compile(rf"({_ITEM})\s*(不)?\s*能整除\s*({_ITEM})")
_ZH_MULTIPLE = re.compile(rf"({_ITEM})\s*(不)?\s*是\s*({_ITEM})\s*的\s*(倍数|因数|约数)")
_EN_LIST = rf"({_ITEM}(?:\s*(?:,|and)\s*{_ITEM}){{0,12}})"
_EN_PROPERTY = re.compile(
    _EN_LIST
    + r"\s+(?:is|are)\s+(not\s+)?(?:both\s+|all\s+)?(?:an?\s+)?"
    + r"(prime|composite|even|odd|integer|whole number|perfect square)s?(?:\s+numbers?)?\b"
    + r"(?!\s*(?:factor|divisor|power|root|number of|part))",
    re.IGNORECASE,
)
_EN_DIVIDED = re.compile(rf"({_ITEM})\s+is\s+(not\s+)?(?:evenly\s+)?divisible\s+by\s+({_ITEM})", re.IGNORECASE)
_HYPOTHESIS = re.compile(r"若|如果|假设|假如|设|倘若|是否|\bif\b|\bsuppose\b|\bassume\b|\bwhether\b", re.IGNORECASE)
_ENGLISH_PROPERTY = {
    "prime": "质数",
    "composite": "合数",
    "even": "偶数",
    "odd": "奇数",
    "integer": "整数",
    "whole number": "整数",
    "perfect square": "完全平方数",
}


@dataclass(frozen=True)
class Fact:
    """One stated fact about numbers and whether it holds."""

    statement: str
    """The words as read (plain form)."""
    holds: bool
    why: str
    """What is true instead, for a reader: ``10 = 2 × 5``."""


def stated_facts(text: str) -> list[Fact]:
    """Every fact about numbers that ``text`` states (see the module doc), checked."""
    return [fact for _, fact in sorted(_facts(plain(text)), key=lambda found: found[0])]


def _facts(text: str) -> Iterator[tuple[int, Fact]]:
    """Each fact with where it starts in ``text``."""
    for match in _ZH_PROPERTY.finditer(text):
        if _hypothetical(text, match.start()):
            continue
        items = re.split(r"[、和与及]", match.group(1))
        for found in _property_facts(match.group(0), items, match.group(3), bool(match.group(2))):
            yield match.start(), found
    for match in _EN_PROPERTY.finditer(text):
        if _hypothetical(text, match.start()):
            continue
        items = re.split(r",|and", match.group(1))
        prop = _ENGLISH_PROPERTY[match.group(3).lower()]
        for fact in _property_facts(match.group(0), items, prop, bool(match.group(2))):
            yield match.start(), fact
    for pattern, order in ((_ZH_DIVIDED, "divided"), (_ZH_DIVIDES, "divides"), (_EN_DIVIDED, "divided")):
        for match in pattern.finditer(text):
            if _hypothetical(text, match.start()):
                continue
            a, b = number(match.group(1)), number(match.group(3))
            if order == "divides":
                a, b = b, a
            divisible = _divisible(match.group(0), a, b, bool(match.group(2)))
            if divisible is not None:
                yield match.start(), divisible
    for match in _ZH_MULTIPLE.finditer(text):
        if _hypothetical(text, match.start()):
            continue
        a, b = number(match.group(1)), number(match.group(3))
        if match.group(4) != "倍数":
            a, b = b, a  # 3是12的因数: 12 is divisible by 3
        multiple = _divisible(match.group(0), a, b, bool(match.group(2)))
        if multiple is not None:
            yield match.start(), multiple


def _hypothetical(text: str, start: int) -> bool:
    """Whether the clause before ``start`` makes the statement a hypothesis rather than a claim."""
    clause = re.split(r"[,，;；。.!?！？:：]", text[max(0, start - 12) : start])[-1]
    return bool(_HYPOTHESIS.search(clause))


def _property_facts(statement: str, items: list[str], prop: str, negated: bool) -> Iterator[Fact]:
    for item in items:
        value = number(item.strip())
        if value is None:
            continue
        verdict = _has_property(value, prop)
        if verdict is None:
            continue
        holds, why = verdict
        yield Fact(statement, holds != negated, why)


def _has_property(value: Fraction, prop: str) -> tuple[bool, str] | None:
    """Whether ``value`` has ``prop`` and a line saying why (``None``: not checked)."""
    whole = value.denominator == 1
    n = value.numerator
    if prop == "整数":
        return whole, f"{value} is {'' if whole else 'not '}an integer"
    if not whole:
        return False, f"{value} is not an integer"
    if prop in ("偶数", "奇数"):
        even = n % 2 == 0
        return even == (prop == "偶数"), f"{n} is {'even' if even else 'odd'}"
    if prop in ("完全平方数", "平方数"):
        root = math.isqrt(n) if n >= 0 else -1
        square = root >= 0 and root * root == n
        return square, f"{n} is {'' if square else 'not '}a perfect square"
    if len(str(abs(n))) > MAX_PRIME_DIGITS:
        return None
    import sympy  # here, not at the top: a report that only names the detectors never loads it

    prime = bool(sympy.isprime(n))
    if prop in ("质数", "素数"):
        return prime, _primality(n, prime)
    composite = n > 1 and not prime
    return composite, _primality(n, prime)


def _primality(n: int, prime: bool) -> str:
    if prime:
        return f"{n} is prime"
    if n < 2:
        return f"{n} is neither prime nor composite"
    import sympy

    factor = int(min(sympy.factorint(n)))
    return f"{n} = {factor} × {n // factor}"


def _divisible(statement: str, a: Fraction | None, b: Fraction | None, negated: bool) -> Fact | None:
    """``a`` is divisible by ``b`` (integers only; ``b`` not 0)."""
    if a is None or b is None or a.denominator != 1 or b.denominator != 1 or b == 0:
        return None
    divisible = a.numerator % b.numerator == 0
    why = f"{a} ÷ {b} = {a / b}"
    return Fact(statement, divisible != negated, why)
