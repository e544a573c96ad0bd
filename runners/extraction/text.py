"""The view of a model output that the extractors read: the answer window, width-folded, formatting masked.

Every transformation keeps the length of the text, so a match in the view is a
span of the original output (``View.start`` + match offsets).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

# A base model in few-shot mode goes on to write the next example (例2:, 第1个例子:): the answer ends there.
_CONTINUATION = re.compile(
    r"\n\s*(?:例\s*\d+\s*[:：]|第\s*\d+\s*个例子\s*[:：]|题目\s*[:：]|问题\s*[:：]|Example\s+\d+\s*:|Question\s*:)"
)
# LaTeX commands other than \boxed (CK12 writes letters as $$\rm B$$ or $${A}{}$$), braces, $, markdown, quotes.
_MASKED = re.compile(r"\\(?!boxed\b)[A-Za-z]+|[{}$*`\"“”‘’「」『』【】《》〈〉]")

_VERDICT_COMMANDS = {"\\times": "×", "\\surd": "√", "\\checkmark": "√"}


@dataclass(frozen=True)
class Found:
    """What an extractor found: the answer in the gold answer's normal form and where it was read."""

    answer: list[str] | list[bool]
    start: int
    """Offset in the view's text (not yet in the raw output)."""
    end: int
    rule: str
    """Which rule read it (``explicit``, ``stated-correct``, ``leading``, ``lone-letter``, ``option-text`` ...)."""


@dataclass(frozen=True)
class View:
    """The part of an output that holds the answer, in forms convenient for matching."""

    raw: str
    """The whole output, untouched."""
    start: int
    """Where the window starts in ``raw``."""
    text: str
    """The window, width-folded (Ａ -> A, ： -> :, （ -> ( ...); same length as the raw window."""
    masked: str
    """``text`` with formatting (``$``, ``**``, quotes, ``\\text{``, ``}`` ...) turned into spaces."""


def make_view(raw: str) -> View:
    """The answer window of ``raw``: after a closed ``</think>``, before a continued next example."""
    start, end = 0, len(raw)
    closed = raw.rfind("</think>")
    if closed >= 0:
        start = closed + len("</think>")
    cut = _CONTINUATION.search(raw, start)
    if cut and raw[start : cut.start()].strip():
        end = cut.start()
    window = raw[start:end]
    text = fold(window)
    return View(raw=raw, start=start, text=text, masked=_MASKED.sub(_blank, text))


def _blank(match: re.Match[str]) -> str:
    """Spaces of the same length; a verdict command keeps its symbol (CK12 writes $$\\times$$ and $$\\surd$$)."""
    symbol = _VERDICT_COMMANDS.get(match.group(), "")
    return symbol + " " * (len(match.group()) - len(symbol))


def fold(text: str) -> str:
    """Full-width letters, digits and punctuation to their ASCII forms, character by character.

    A character whose compatibility form is longer than one character (``…``, ``½``) is kept,
    so offsets do not move.
    """
    return "".join(_fold_char(c) for c in text)


@lru_cache(maxsize=4096)
def _fold_char(c: str) -> str:
    if c.isascii():
        return c
    folded = unicodedata.normalize("NFKC", c)
    return folded if len(folded) == 1 else c
