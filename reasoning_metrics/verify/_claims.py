"""Find the relations a step asserts (``a = b``, ``a ≈ b``, ``a < b`` ...) and the calculations on each side.

Prose and calculations are mixed in a step, so each side of a relation is the
longest run of calculation tokens next to it that parses. Unit words right after
a quantity (``2 books × 3 pounds/book = 6 pounds``, ``3个×4=12``) are dropped;
single letters are variables and stay (the claim is then not checked); any other
word ends the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from reasoning_metrics.verify._expr import MAX_TOKENS, Node, ParseFailure, parse
from reasoning_metrics.verify._lexer import Kind, Token

_MATH = {Kind.NUM, Kind.OP, Kind.LP, Kind.RP, Kind.PCT, Kind.FACT, Kind.FUNC, Kind.CONST}
_VALUE_END = {Kind.NUM, Kind.RP, Kind.PCT}
_UNIT_FOLLOWERS = {Kind.OP, Kind.REL, Kind.RP, Kind.SEP}
_FUNCTION_WORDS = {
    "sin",
    "cos",
    "tan",
    "cot",
    "log",
    "ln",
    "lg",
    "exp",
    "lim",
    "max",
    "min",
    "mod",
    "gcd",
    "lcm",
}
_STOP_WORDS = {
    "and",
    "or",
    "so",
    "then",
    "is",
    "are",
    "was",
    "were",
    "the",
    "to",
    "which",
    "that",
    "if",
    "we",
}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "trillion": 10**12}
_WORD_OPS = {"times": "*", "multiplied": "*", "divided": "/", "plus": "+", "minus": "-", "over": "/"}
_WORD_RELS = {"equals": "="}
MAX_UNIT_WORDS = 3
"""A unit is at most this many words (``miles per hour``); longer runs of words are prose."""


@dataclass(frozen=True)
class Claim:
    """Two calculations joined by a relation, as written in the step."""

    left: Node
    relation: str
    right: Node
    chained: bool = False
    """The left side is the right side of the claim before (``a = b = c``: true for ``b = c``)."""


def _is_variable(token: Token) -> bool:
    text = token.text
    return token.kind is Kind.WORD and (
        (len(text) == 1 and text.isascii() and text.isalpha())
        or "\u0370" <= text[0] <= "\u03ff"
        or text.lower() in _FUNCTION_WORDS
    )


def _is_unit(token: Token) -> bool:
    return token.kind is Kind.WORD and not _is_variable(token) and token.text.lower() not in _STOP_WORDS


def rewrite_words(tokens: list[Token]) -> list[Token]:
    """Operator words between numbers become operators (``3 x 4``, ``20% of 50``, ``3 times 4``)."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        prev = out[-1] if out else None
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        after_value = prev is not None and prev.kind in _VALUE_END
        before_value = nxt is not None and nxt.kind in (Kind.NUM, Kind.LP, Kind.FUNC)
        word = token.text.lower() if token.kind is Kind.WORD else ""
        if word in _SCALES and prev is not None and prev.kind is Kind.NUM and prev.value is not None:
            out[-1] = Token(Kind.NUM, f"{prev.text} {token.text}", prev.value * _SCALES[word], 0)
        elif (
            after_value and before_value and (word == "x" or (word == "of" and _is_fraction_or_percent(out)))
        ):
            out.append(Token(Kind.OP, "*"))
        elif word in _WORD_OPS and after_value:
            skip = (
                1 if nxt is not None and nxt.text.lower() == "by" and word in ("multiplied", "divided") else 0
            )
            follower = tokens[i + 1 + skip] if i + 1 + skip < len(tokens) else None
            if follower is not None and follower.kind in (Kind.NUM, Kind.LP):
                out.append(Token(Kind.OP, _WORD_OPS[word]))
                i += skip
            else:
                out.append(token)
        elif word in _WORD_RELS and after_value and before_value:
            out.append(Token(Kind.REL, _WORD_RELS[word]))
        else:
            out.append(token)
        i += 1
    return out


def _is_fraction_or_percent(out: list[Token]) -> bool:
    last = out[-1]
    if last.kind in (Kind.PCT, Kind.RP):
        return True
    return len(out) >= 3 and out[-2].symbol == "/" and out[-3].kind is Kind.NUM


def drop_units(tokens: list[Token]) -> list[Token]:
    """``tokens`` without unit words after quantities: ``3 books ×`` -> ``3 ×``, ``35/hour =`` -> ``35 =``."""
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        after_value = bool(out) and out[-1].kind in _VALUE_END
        if after_value and (span := _unit_span(tokens, i)):
            i += span
            continue
        out.append(token)
        i += 1
    return out


def _unit_span(tokens: list[Token], i: int) -> int:
    """Length of the unit phrase starting at ``i`` (``pounds/book``, ``(lost income)``), or 0 if none."""
    n = len(tokens)
    if tokens[i].kind is Kind.LP:  # a parenthesised note of words: "$105 (lost income)"
        j = i + 1
        while j < n and _is_unit(tokens[j]):
            j += 1
        return j - i + 1 if j > i + 1 and j < n and tokens[j].kind is Kind.RP else 0
    j, words = i, 0
    while j < n and words < MAX_UNIT_WORDS:
        if _is_unit(tokens[j]):
            j += 1
        elif tokens[j].symbol == "/" and j + 1 < n and _is_unit(tokens[j + 1]):
            j += 2
        else:
            break
        words += 1
    if j == i:
        return 0
    follower = tokens[j] if j < n else None
    return j - i if follower is None or follower.kind in _UNIT_FOLLOWERS else 0


def _is_math(token: Token) -> bool:
    return token.kind in _MATH or _is_variable(token)


def find_claims(tokens: list[Token]) -> Iterator[Claim]:
    """Every relation in ``tokens`` whose two sides parse as calculations, chains split into pairs."""
    tokens = drop_units(rewrite_words(tokens))
    segment: list[Token] = []
    for token in [*tokens, Token(Kind.SEP, "")]:
        if token.kind is Kind.SEP:
            yield from _segment_claims(segment)
            segment = []
        else:
            segment.append(token)


def _segment_claims(segment: list[Token]) -> Iterator[Claim]:
    relations = [i for i, token in enumerate(segment) if token.kind is Kind.REL]
    if not relations:
        return
    bounds = [-1, *relations, len(segment)]
    sides = [segment[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
    previous_right: Node | None = None
    for k, rel in enumerate(relations):
        left = _longest_parse(_math_suffix(sides[k]), from_end=True)
        right = _longest_parse(_math_prefix(sides[k + 1]), from_end=False)
        if left is not None and right is not None:
            yield Claim(
                left,
                segment[rel].symbol,
                right,
                chained=previous_right is not None and left == previous_right,
            )
        previous_right = right


def _math_suffix(side: list[Token]) -> list[Token]:
    """The calculation that ends ``side``; empty when it ends a larger expression with words in it."""
    start = len(side)
    while start > 0 and _is_math(side[start - 1]):
        start -= 1
    if 0 < start < len(side) - 1 and side[start].kind is Kind.OP:
        signed = side[start].symbol in "+-" and not side[start + 1].gap  # "so -1 + 1 = 0"
        if not signed:
            return []  # "Chenny's age - 4 = ...": the 4 is not the whole left side
    return side[max(start, len(side) - MAX_TOKENS) :]


def _math_prefix(side: list[Token]) -> list[Token]:
    """The calculation that starts ``side``; empty when words continue it (``= 4 * the rest``)."""
    end = 0
    while end < len(side) and _is_math(side[end]):
        end += 1
    if 0 < end < len(side) and side[end - 1].kind is Kind.OP:
        return []
    return side[: min(end, MAX_TOKENS)]


def _longest_parse(run: list[Token], from_end: bool) -> Node | None:
    """The longest part of ``run`` next to the relation that parses.

    Only unbalanced parentheses may be cut away (``(3 + 4 = 7)``): a part that is
    an operand of something cut away (``) * 100 = ...``) is not the side.
    """
    for cut in range(len(run)):
        part = run[cut:] if from_end else run[: len(run) - cut]
        if cut and run[cut - 1 if from_end else len(run) - cut].kind is not (
            Kind.LP if from_end else Kind.RP
        ):
            return None
        if not any(token.kind in (Kind.NUM, Kind.CONST) or _is_variable(token) for token in part):
            return None
        try:
            return parse(part)
        except ParseFailure:
            continue
    return None


def literal_value(node: Node) -> tuple[Fraction, int, bool] | None:
    """``(value, decimals, is_percent)`` when ``node`` is one signed number or percentage, else ``None``."""
    sign = 1
    percent = False
    while node.op in ("neg", "%"):
        if node.op == "neg":
            sign = -sign
        else:
            if percent:
                return None
            percent = True
        node = node.args[0]
    if node.op != "num" or node.value is None:
        return None
    return sign * node.value, node.decimals, percent
