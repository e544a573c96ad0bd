"""A quantity named, written as a calculation, then named again with its value: the two must agree.

``Total earnings = $3.00 + $3.00 + $1.50 + $1.50. Total earnings = $8.00.`` states
``3 + 3 + 1.5 + 1.5 = 8`` without writing it as one equation, and so does
``\\[ S = 165 \\times \\frac{6}{11} \\] \\[ S = 9 \\times 6 \\]``. Within one step, a name
(the words, or the one variable, right before ``=``) that was given a calculation
whose value was not written (no ``= value`` after it) is *pending*; the next time the
same name is given a value, the two are compared as one claim. A calculation that
states its own value (``Total cost = 5 × 3 = 15``) is not pending, so reusing a name
for another total (``Total cost = 2 × 4 = 8``) compares nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from reasoning_metrics.verify._claims import Claim, is_variable, longest_prefix_parse
from reasoning_metrics.verify._expr import MAX_TOKENS, Node
from reasoning_metrics.verify._lexer import Kind, Token

MAX_NAME_WORDS = 4
"""A name is at most the last this many words before ``=`` (``steps taken during the jog``)."""


def restated_claims(tokens: list[Token]) -> Iterator[tuple[str, Claim]]:
    """``(name, calculation = restated value)`` for each name restated in :func:`~._claims.prepare`-d ``tokens``."""
    pending: dict[str, Node] = {}
    for r, token in enumerate(tokens):
        if token.kind is not Kind.REL or token.symbol != "=":
            continue
        name = _name_before(tokens, r)
        if name is None:
            continue
        value, end = longest_prefix_parse(tokens[r + 1 : r + 2 + MAX_TOKENS])  # no side is longer
        earlier = pending.pop(name, None)
        if value is None or value.has_variable():
            continue
        if earlier is not None:
            yield name, Claim(earlier, "=", value)
        states_value = r + 1 + end < len(tokens) and tokens[r + 1 + end].kind is Kind.REL
        if value.is_operation() and not states_value:
            pending[name] = value


def _name_before(tokens: list[Token], r: int) -> str | None:
    """The name given a value by the ``=`` at ``r``: one variable (``S =``) or the words before it
    (``Total earnings =``); ``None`` when a calculation stands there (an ordinary claim)."""
    if r == 0 or tokens[r - 1].kind is not Kind.WORD:
        return None
    if is_variable(tokens[r - 1]):
        before = tokens[r - 2] if r >= 2 else None
        alone = before is None or (before.kind in (Kind.SEP, Kind.WORD) and not is_variable(before))
        return tokens[r - 1].text if alone else None
    words: list[str] = []
    k = r - 1
    while k >= 0 and tokens[k].kind is Kind.WORD and not is_variable(tokens[k]) and len(words) < MAX_NAME_WORDS:
        words.append(tokens[k].text.lower())
        k -= 1
    return " ".join(reversed(words))
