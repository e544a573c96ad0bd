"""Step text as plain prose with plain numbers, for the rules that read stated facts and formulas.

Unlike :mod:`._normalize` (which prepares calculations for the arithmetic parser), this keeps the
words: LaTeX wrappers go (``$$``, ``\\text{km}``, ``\\left(``), ``\\frac{a}{b}`` becomes ``a/b``,
``\\times``/``\\div``/``\\pi``/``^\\circ`` become ``× ÷ π °``, superscripts become ``^2``, full-width
forms become ASCII, and Chinese numerals become digits (so ``五边形`` reads ``5边形`` and ``三角形``
reads ``3角形``). Linear in the text's length; nothing is evaluated.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from kg.latex import ARITHMETIC
from reasoning_metrics.verify._chinese import rewrite_chinese

MAX_CHARS = 20_000
"""Only the first this many characters of a step are read."""
MAX_DIGITS = 30
"""Longer numerals are not read as numbers (nothing is checked on them)."""

NUM = r"-?\d+(?:\.\d+)?"
"""A plain decimal number."""
START = r"(?<![A-Za-z0-9_.^)/+\-×÷*])"
"""A number starts here: not inside a name, a longer number or a calculation."""

_LONG_NUMERAL = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")
_WRAPPERS = re.compile(r"\\(?:text|mathrm|rm|mathit|operatorname|mbox|textbf|boldsymbol)\s*")
_FRAC = re.compile(r"\\[dt]?frac\s*\{\s*(-?\d+(?:\.\d+)?)\s*\}\s*\{\s*(\d+(?:\.\d+)?)\s*\}")
_COMMANDS = {
    **{"\\" + name: ARITHMETIC[name].strip() for name in ("times", "cdot", "div")},
    r"\pi": "π",  # the facts and formulas are written with π (ARITHMETIC spells it out for the evaluator)
    **{"\\" + name: ARITHMETIC[name].strip() for name in ("leqslant", "geqslant", "leq", "geq", "le", "ge")},
    **{"\\" + name: ARITHMETIC[name].strip() for name in ("neq", "ne", "lt", "gt", "approx")},
    **{"\\" + name: "" for name in ("left", "right")},
    r"\quad": " ",
    r"\min": "min",
    r"\,": " ",
    r"\;": " ",
}
"""The verifier's reading of the commands a plain step keeps (operators from the one table: kg.latex.ARITHMETIC)."""
_COMMAND = re.compile(
    "|".join(re.escape(command) + ("(?![A-Za-z])" if command[-1].isalpha() else "") for command in _COMMANDS)
)
"""A whole command: ``\\le`` is not the start of ``\\left``, nor ``\\ne`` of ``\\neq`` or ``\\newline``."""
_SUPERSCRIPTS = {"²": "^2", "³": "^3"}
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ|\\degree")
_POWER = re.compile(r"\^\s*\{\s*(-?\d+)\s*\}")


def plain(text: str) -> str:
    """``text`` rewritten as described in the module doc."""
    text = text[:MAX_CHARS]
    for char, plain_form in _SUPERSCRIPTS.items():
        text = text.replace(char, plain_form)  # before NFKC, which would make m² read m2
    text = unicodedata.normalize("NFKC", text)
    text = _DEGREES.sub("°", text)
    text = _FRAC.sub(r"\1/\2", text)
    text = _WRAPPERS.sub("", text)
    text = _COMMAND.sub(lambda match: _COMMANDS[match.group()], text)
    text = _POWER.sub(r"^\1", text)
    text = text.replace("$", " ").replace("{", "").replace("}", "").replace("＝", "=")
    text = text.replace("⋅", "×").replace("·", "×").replace("−", "-")
    # a numeral too long to read is not a number (nothing here checks one)
    text = _LONG_NUMERAL.sub("#", text)
    return rewrite_chinese(text)


def number(text: str) -> Fraction | None:
    """The value of a plain number or fraction ``a/b`` (``None`` when it is too long or ``b`` is 0)."""
    text = text.replace(" ", "")
    if len(text) > MAX_DIGITS:
        return None
    top, _, bottom = text.partition("/")
    try:
        value = Fraction(top)
        if bottom:
            divisor = Fraction(bottom)
            if divisor == 0:
                return None
            value /= divisor
    except ValueError:
        return None
    return value


def decimals(text: str) -> int:
    """How many decimals a plain number is written with."""
    _, _, after = text.partition(".")
    return len(after)
