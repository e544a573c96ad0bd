"""Find the relations a step asserts (``a = b``, ``a ≈ b``, ``a < b`` ...) and the calculations on each side.

Prose and calculations are mixed in a step, so each side of a relation is the
longest run of calculation tokens next to it that parses. Unit words right after
a quantity (``2 books × 3 pounds/book = 6 pounds``, ``3个×4=12``) are dropped;
single letters are variables and stay (the claim is then not checked); any other
word ends the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction

from reasoning_metrics.verify._expr import MAX_TOKENS, Node, ParseFailure, parse
from reasoning_metrics.verify._lexer import Kind, Token
from reasoning_metrics.verify._units import strip_units

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
_GREEK_NAMES = {"alpha", "beta", "gamma", "delta", "theta", "lambda", "mu", "rho", "sigma", "omega", "phi", "eta"}
"""LaTeX Greek letters that stay words after normalisation (``\\rho_水``)."""
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
_SHORT_UNITS = {
    "cm",
    "mm",
    "km",
    "dm",
    "kg",
    "mg",
    "ml",
    "mL",
    "kW",
    "kJ",
    "Pa",
    "mA",
    "kV",
    "Hz",
    "hr",
    "yd",
    "ft",
    "in",
    "oz",
    "lb",
}
_TWO_LETTER_WORDS = {
    *("am", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me", "my", "no"),
    *("of", "on", "or", "so", "to", "up", "us", "we"),
}
"""English words of two letters; any other lower-case pair (``ab``, ``mx``) is a product of variables."""
_NESTING = {Kind.LP: 1, Kind.RP: -1}
"""How a token changes the parenthesis depth."""
ELLIPSIS = "⋯"
RATIO = "∶"
MAX_HAN_UNIT = 4
"""Chinese measure words are short (个, 元, 千克, 平方厘米); a longer run of characters is prose."""
MAX_UNIT_WORDS = 3
"""A unit is at most this many words (``miles per hour``); longer runs of words are prose."""
MAX_NOTE_WORDS = 8
"""A parenthesised note after a quantity (``6 (by her brother and sister)``) is at most this many words."""


@dataclass(frozen=True)
class Claim:
    """Two calculations joined by a relation, as written in the step."""

    left: Node
    relation: str
    right: Node
    chained: bool = False
    """The left side is the right side of the claim before (``a = b = c``: true for ``b = c``)."""
    units_dropped: bool = False
    """Read the physics way: unit letters after numbers were dropped (``100m/20s = 5m/s``)."""
    unit: str = ""
    """The unit words written right after the right side when it is one number (``个`` of
    ``2650 ÷ 99 ≈ 26（个）``); empty otherwise."""


def is_variable(token: Token) -> bool:
    """Single letters and short letter groups (``x``, ``ab``, ``AC``, ``ABCD``), Greek letters, functions."""
    text = token.kind is Kind.WORD and token.text
    if not text:
        return False
    if "_" in text.strip("_"):  # a subscripted name: a_1, m_水, ρ_液, rho_液, AB_1
        base = text.split("_", 1)[0]
        return len(base) == 1 or (base.isascii() and base.isupper() and len(base) <= 4) or base in _GREEK_NAMES
    if text.isascii() and text.isalpha():
        if len(text) == 1 or (text.isupper() and len(text) <= 4) or text.lower() in _FUNCTION_WORDS:
            return True
        return len(text) == 2 and text.islower() and text not in _SHORT_UNITS and text not in _TWO_LETTER_WORDS
    return "\u0370" <= text[0] <= "\u03ff"


def _is_unit(token: Token) -> bool:
    """A word that may name the unit of the quantity before it: English words, short Chinese measure words."""
    if token.kind is not Kind.WORD or is_variable(token) or token.text.lower() in _STOP_WORDS:
        return False
    if token.text in (ELLIPSIS, RATIO):
        return False
    return token.text.isascii() or len(token.text) <= MAX_HAN_UNIT


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
        elif before_value and _is_times(word, out, after_value):
            out.append(Token(Kind.OP, "*"))
        elif word in _WORD_OPS and after_value:
            skip = 1 if nxt is not None and nxt.text.lower() == "by" and word in ("multiplied", "divided") else 0
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


def _is_times(word: str, out: list[Token], after_value: bool) -> bool:
    """``3 x 4``, ``1 skirt x $8``, ``20% of 50``, ``3/4 of 8``: the word multiplies."""
    if word == "x":
        return after_value or _after_quantity(out)
    return word == "of" and after_value and _is_fraction_or_percent(out)


def _after_quantity(out: list[Token]) -> bool:
    """Whether ``out`` ends with a number and its unit word (``1 skirt`` of ``1 skirt x $8``)."""
    return len(out) >= 2 and _is_unit(out[-1]) and out[-2].kind in _VALUE_END


def _is_fraction_or_percent(out: list[Token]) -> bool:
    last = out[-1]
    if last.kind in (Kind.PCT, Kind.RP):
        return True
    return len(out) >= 3 and out[-2].symbol == "/" and out[-3].kind is Kind.NUM


def drop_units(tokens: list[Token]) -> list[Token]:
    """``tokens`` without unit words after quantities: ``3 books ×`` -> ``3 ×``, ``35/hour =`` -> ``35 =``.
    A number keeps the words dropped after it as its :attr:`~._lexer.Token.unit`."""
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        after_value = bool(out) and out[-1].kind in _VALUE_END
        if after_value and (span := _unit_span(tokens, i)):
            if out[-1].kind is Kind.NUM:
                out[-1] = replace(out[-1], unit="".join(t.text for t in tokens[i : i + span] if t.kind is Kind.WORD))
            i += span
            continue
        out.append(token)
        i += 1
    return out


def _unit_span(tokens: list[Token], i: int) -> int:
    """Length of the unit phrase starting at ``i`` (``pounds/book``, ``(lost income)``,
    ``minutes (before dinner)``), or 0 if none."""
    n = len(tokens)
    if tokens[i].kind is Kind.LP:  # "$105 (lost income)", "150 (cm)^2", "6 (by her brother and sister)"
        return _note_span(tokens, i)
    j, words = i, 0
    while j < n and words < MAX_UNIT_WORDS:
        if _is_unit(tokens[j]):
            j = _with_exponent(tokens, j + 1)
        elif tokens[j].symbol == "/" and j + 1 < n and _is_unit(tokens[j + 1]):
            j += 2
        else:
            break
        words += 1
    if j == i:
        return 0
    if j < n and tokens[j].kind is Kind.LP:
        j += _note_span(tokens, j)
    follower = tokens[j] if j < n else None
    return j - i if follower is None or follower.kind in _UNIT_FOLLOWERS else 0


def _note_span(tokens: list[Token], i: int) -> int:
    """Length of the parenthesised note of words opening at ``i`` (``(by Doxa)``, ``(cm)^2``), or 0.

    Words only, none of them a variable, at most :data:`MAX_NOTE_WORDS`: ``(x + 1)`` and ``(2 n)``
    are calculations, not notes.
    """
    n = len(tokens)
    j = i + 1
    while j < n and j - i <= MAX_NOTE_WORDS and _is_note_word(tokens[j]):
        j += 1
    if not (j > i + 1 and j < n and tokens[j].kind is Kind.RP):
        return 0
    return _with_exponent(tokens, j + 1) - i


def _is_note_word(token: Token) -> bool:
    return token.kind is Kind.WORD and not is_variable(token) and token.text not in (ELLIPSIS, RATIO)


def _with_exponent(tokens: list[Token], j: int) -> int:
    """``j``, moved past a unit's exponent if one starts there (``cm^2``, ``m^(3)``)."""
    if j + 1 < len(tokens) and tokens[j].symbol == "^":
        if tokens[j + 1].kind is Kind.NUM:
            return j + 2
        if tokens[j + 1].kind is Kind.LP:
            return _group_end(tokens, j + 1)
    return j


def _group_end(tokens: list[Token], start: int) -> int:
    """Index after the parenthesised group opening at ``start`` (or ``start + 1`` if it does not close)."""
    depth = 0
    for k in range(start, len(tokens)):
        depth += _NESTING.get(tokens[k].kind, 0)
        if depth == 0:
            return k + 1
    return start + 1


def _is_math(token: Token) -> bool:
    return token.kind in _MATH or is_variable(token)


def _mark_ratios(tokens: list[Token]) -> list[Token]:
    """``3:4`` (written without spaces) is a ratio, not two sentences: its colon becomes a word. So is a colon
    between numbers right after a relation, spaced or full-width (``= 1 : 128``, ``=1：128``): a claimed value is
    not followed by a sentence's colon, whereas ``Step 1: 3 × 4`` is."""
    out = list(tokens)
    for k in range(1, len(tokens) - 1):
        valued = k >= 2 and tokens[k - 2].kind is Kind.REL and tokens[k - 1].kind is Kind.NUM
        if (
            tokens[k].text in (":", "∶")
            and (valued or (not tokens[k].gap and not tokens[k + 1].gap))
            and tokens[k - 1].kind in _VALUE_END
            and tokens[k + 1].kind in (Kind.NUM, Kind.LP)
        ):
            out[k] = Token(Kind.WORD, RATIO)
    return out


def prepare(tokens: list[Token]) -> list[Token]:
    """Ratios marked, operator words rewritten, unit words dropped: the tokens the claims are read from."""
    return drop_units(rewrite_words(_mark_ratios(tokens)))


def find_claims(tokens: list[Token]) -> Iterator[Claim]:
    """Every relation in :func:`prepare`-d ``tokens`` whose two sides parse, chains split into pairs."""
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
        left_run, right_run = _math_suffix(sides[k]), _math_prefix(sides[k + 1])
        left = _longest_parse(left_run, from_end=True)
        right = _longest_parse(right_run, from_end=False)
        if left is not None and right is not None:
            chained = previous_right is not None and left == previous_right
            # a one-number right side is read from the start of its run: its number is the run's first
            unit = next((t.unit for t in right_run if t.kind is Kind.NUM), "") if literal_value(right) else ""
            claim = Claim(left, segment[rel].symbol, right, chained=chained, unit=unit)
            if left.has_variable() or right.has_variable():
                claim = _physics_reading(left_run, right_run, claim) or claim
            yield claim
        previous_right = right


def _physics_reading(left_run: list[Token], right_run: list[Token], claim: Claim) -> Claim | None:
    """The claim with unit letters dropped, when both sides are physics quantities (see :mod:`._units`)."""
    left_tokens, left_units = strip_units(left_run)
    right_tokens, right_units = strip_units(right_run)
    if left_units <= 0 or right_units <= 0:
        return None
    left = _longest_parse(left_tokens, from_end=True)
    right = _longest_parse(right_tokens, from_end=False)
    if left is None or right is None or left.has_variable() or right.has_variable():
        return None
    return Claim(left, claim.relation, right, chained=claim.chained, units_dropped=True)


def _math_suffix(side: list[Token]) -> list[Token]:
    """The calculation that ends ``side``; empty when it ends a larger expression with words in it."""
    start = len(side)
    while start > 0 and _is_math(side[start - 1]):
        start -= 1
    if start > 0 and side[start - 1].text in (RATIO, ELLIPSIS):
        return []  # "5/5 : 4/3 = ...", "... + 19^3 = ...": part of a ratio or an elided sum
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
    if 0 < end < len(side) and (side[end - 1].kind is Kind.OP or side[end].text in (RATIO, ELLIPSIS)):
        return []
    return _before_unclosed(side[: min(end, MAX_TOKENS)])


def _before_unclosed(run: list[Token]) -> list[Token]:
    """``run`` up to its first parenthesis that does not close in it: ``14.99 (round to cents)``,
    ``$0.20 (20 cents)``: the parenthesis opens prose, not a factor."""
    open_at: list[int] = []
    for k, token in enumerate(run):
        if token.kind is Kind.LP:
            open_at.append(k)
        elif token.kind is Kind.RP and open_at:
            open_at.pop()
    if open_at:
        return run[: open_at[0]]
    k = _group_start(run)
    if k > 0 and run[k - 1].kind is Kind.NUM and run[k].gap and not any(map(is_variable, run[k:])):
        return run[:k]  # "$0.20 (20 cents)", "12 (2 × 6)": the same value restated, not a factor
    return run


def _group_start(run: list[Token]) -> int:
    """Where the parenthesised group that ends ``run`` opens (-1 if ``run`` does not end with one)."""
    depth = 0
    for k in range(len(run) - 1, -1, -1):
        depth -= _NESTING.get(run[k].kind, 0)
        if depth == 0:
            return k if k < len(run) - 1 or run[k].kind is Kind.LP else -1
    return -1


def _longest_parse(run: list[Token], from_end: bool) -> Node | None:
    """The longest part of ``run`` next to the relation that parses.

    Only unbalanced parentheses may be cut away (``(3 + 4 = 7)``): a part that is
    an operand of something cut away (``) * 100 = ...``) is not the side.
    """
    for cut in range(len(run)):
        part = run[cut:] if from_end else run[: len(run) - cut]
        if cut and run[cut - 1 if from_end else len(run) - cut].kind is not (Kind.LP if from_end else Kind.RP):
            return None
        if not any(token.kind in (Kind.NUM, Kind.CONST) or is_variable(token) for token in part):
            return None
        try:
            return parse(part)
        except ParseFailure:
            continue
    return None


def longest_prefix_parse(side: list[Token]) -> tuple[Node | None, int]:
    """The calculation that starts ``side`` (as the right side of a relation is read) and the number
    of tokens of its run; ``(None, 0)`` when none does."""
    run = _math_prefix(side)
    return _longest_parse(run, from_end=False), len(run)


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
