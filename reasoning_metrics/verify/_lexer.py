"""Tokens of normalised step text: numbers, operators, relations, words and separators.

One regular expression over the text, linear in its length; nothing is evaluated here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum
from fractions import Fraction


class Kind(Enum):
    """What a token is."""

    NUM = "num"
    OP = "op"
    REL = "rel"
    LP = "("
    RP = ")"
    PCT = "%"
    FACT = "!"
    WORD = "word"
    FUNC = "func"
    CONST = "const"
    SEP = "sep"


MAX_DIGITS = 40
"""A numeral with more digits than this is not read (its token carries no value)."""

FUNCTIONS = {"sqrt", "sin", "cos", "tan", "cot", "ln", "lg", "log", "exp"}
"""Functions of one argument; ``log_2`` (a base written as a subscript) is one too."""
CONSTANTS = {"pi": "pi", "π": "pi", "ℯ": "e", "ⅈ": "i"}
"""``ℯ`` and ``ⅈ`` are the forms :mod:`._normalize` gives Euler's number and the imaginary unit where
the text makes them unambiguous (``e^{2}``, ``\\mathrm{i}``): a plain ``e`` or ``i`` is a variable."""
_LOG_BASE = re.compile(r"log_(\d{1,3})")
_OPS = {"**": "^", "^": "^", "*": "*", "×": "*", "/": "/", "÷": "/", "+": "+", "-": "-"}
_RELS = {
    "=": "=",
    "==": "=",
    "≈": "≈",
    "≠": "≠",
    "<": "<",
    ">": ">",
    "<=": "≤",
    ">=": "≥",
    "≤": "≤",
    "≥": "≥",
}

_TOKEN = re.compile(
    r"""
    (?P<newline>\s*\n\s*)
  | (?P<space>\s+)
  | (?P<arrow>=>|->|<-|<=>)
  | (?P<num>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
  | (?P<rel><=|>=|==|[=≈≠<>≤≥])
  | (?P<op>\*\*|[+\-*/×÷^])
  | (?P<lp>[(\[])
  | (?P<rp>[)\]])
  | (?P<pct>%)
  | (?P<fact>!(?=[ \t]*[=+\-*/×÷^)]))
  | (?P<word>⋯|∶|(?:[A-Za-z]+|[\u0370-\u03ff])_[A-Za-z0-9\u4e00-\u9fff]+|[A-Za-z_]+(?:['’][A-Za-z]+)*|[\u4e00-\u9fff]+|[\u0370-\u03ff]|[ℯⅈ])
  | (?P<sep>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    """One token. ``value`` is set for readable numbers, ``decimals`` counts their fraction digits."""

    kind: Kind
    text: str
    value: Fraction | None = None
    decimals: int = 0
    gap: bool = False
    """Whitespace came right before the token (``4(40)`` is a product, ``$0.20 (20 cents)`` is not)."""
    unit: str = ""
    """For a number, the unit words written right after it that were dropped
    (:func:`~reasoning_metrics.verify._claims.drop_units`): ``个`` of ``26（个）``, ``辆车`` of ``2辆车``."""

    @property
    def symbol(self) -> str:
        """Canonical operator or relation symbol (``×`` -> ``*``, ``>=`` -> ``≥``), else the text."""
        if self.kind is Kind.OP:
            return _OPS[self.text]
        if self.kind is Kind.REL:
            return _RELS[self.text]
        return self.text


def tokenize(text: str) -> list[Token]:
    """Every token of ``text`` (whitespace dropped), in order."""
    tokens: list[Token] = []
    gap = False
    for match in _TOKEN.finditer(text):
        group = match.lastgroup
        value = match.group(0)
        if group == "space":
            gap = True
            continue
        if group == "num":
            token = _number(value)
        elif group == "word":
            token = _word(value)
        elif group in ("arrow", "newline"):
            token = Token(Kind.SEP, value)
        else:
            token = Token(Kind(_GROUP_KINDS[group or "sep"]), value)
        tokens.append(replace(token, gap=gap) if gap else token)
        gap = False
    return tokens


_GROUP_KINDS = {"rel": "rel", "op": "op", "lp": "(", "rp": ")", "pct": "%", "fact": "!", "sep": "sep"}


def _number(text: str) -> Token:
    plain = text.replace(",", "")
    whole, _, fraction = plain.partition(".")
    if len(whole) + len(fraction) > MAX_DIGITS:
        return Token(Kind.NUM, text)
    return Token(Kind.NUM, text, Fraction(plain), len(fraction))


def _word(text: str) -> Token:
    if text in FUNCTIONS or _LOG_BASE.fullmatch(text):
        return Token(Kind.FUNC, text)
    if text in CONSTANTS:
        return Token(Kind.CONST, CONSTANTS[text])
    return Token(Kind.WORD, text)
