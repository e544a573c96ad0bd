"""Split reasoning chains into steps, for Chinese and English alike.

The reference (ROSCOE) splits with ``nltk.sent_tokenize`` plus newlines, which
keeps a Chinese chain that uses ``。`` as one step. Here a step ends at:

- a line break;
- ``。！？；`` and CK12's full-width period ``．`` (never between two digits);
- ``. ! ?`` followed by a space and a capital letter, digit, quote, bracket, ``$``
  or a Chinese character -- unless the word before the period is an abbreviation
  (``e.g.``, ``Mr.``, ``U.S.``...) or the period is a decimal point;
- in Chinese text, ``.`` directly followed by a Chinese character.

A new step also starts before ``∵`` and ``∴`` and, in Chinese text, before a
numbered marker (``(1)``, ``（1）``, ``①``) that follows punctuation or a space.
Numbered lines (``1.``, ``Step 2:``) start a step because they start a line.
LaTeX (``$$...$$``, ``$...$``, ``\\(...\\)``, ``\\[...\\]``) is never cut.
"""

from __future__ import annotations

import itertools
import re
from typing import Literal

from kg.records import detect_language

Lang = Literal["zh", "en"]

_PLACEHOLDER = "\ue000"
# Inline ``$...$`` follows pandoc's rule so that prices ("$2 each ... for $3") are not
# taken for math: no space right after the opening ``$`` nor before the closing one,
# and the closing ``$`` is not followed by a digit.
_INLINE = re.compile(r"\$(?=[^\s$])[^$\n]*?(?<=[^\s\\$])\$(?!\d)")
_DELIMITED = (("$$", "$$"), ("\\(", "\\)"), ("\\[", "\\]"))
"""Math spans between an opener and the nearest closer after it (at least one character inside)."""
_OPENER = re.compile(r"\$|\\[(\[]")
CJK_RANGE = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""The Han ideograph blocks, as a regex character-class body."""
_CLOSERS = re.escape("\"'”’」』）)】]》")
_ZH_END = re.compile(rf"[。！？；．][{_CLOSERS}]*")
_EN_END = re.compile(rf"(?<![.!?])[.!?]+[{_CLOSERS}]*(?=\s+[A-Z0-9\"'“‘(\[$\\{CJK_RANGE}])")
"""A match starts only where a run of marks starts: tried from inside a run of 100,000 ``!`` too,
it scanned the rest of the run each time (quadratic)."""
_ZH_DOT = re.compile(rf"\.[{_CLOSERS}]*(?=[{CJK_RANGE}])")
_BECAUSE = re.compile(rf"(?<=[^\s{CJK_RANGE}])\s*(?=[∵∴])")
_ZH_MARKER = re.compile(r"(?<=[\s，,；;：:。．、])(?=[(（][0-9一二三四五六七八九十]{1,2}[)）]|[①-⑳])")
_LONGEST_ABBREVIATION = 32
"""Characters of the word before a period looked at: longer words are no abbreviation, and reading
a whole long word (or line) at every period of it would be quadratic."""
_ACRONYM = re.compile(r"^[(\"'“]?(?:[A-Za-z]\.)+[A-Za-z]$")
_CONTENT = re.compile(rf"[0-9A-Za-z{CJK_RANGE}①-⑳]")
_BLANK_LINE = re.compile(r"\n[ \t\u3000]*\n")
_BARE_LABEL = re.compile(
    r"^(?:[A-Za-z]|\d{1,2}|[(（][0-9A-Za-z]{1,2}[)）]|[①-⑳]|\$\$\s*(?:\\rm\s*)?\{?[A-Za-z]\}?\s*\$\$)\s*[.．、:：]?$"
    r"|^(?:[Ss]tep\s*\d+|第[0-9一二三四五六七八九十]+步)\s*[.．、:：]?$"
    r"|^.{0,2}[:：]$"
)
"""A piece that is only a label ("A．", "$$\\rm B$$．", "(2)", "解：") belongs to the text after it."""

ABBREVIATIONS = frozenset(
    (  # noqa: SIM905 (a word list reads better as text)
        "mr mrs ms dr prof sr jr st mt vs etc cf al approx fig figs eq eqs no nos vol pp ch sec "
        "dept inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec "
        "e.g i.e a.m p.m u.s u.k u.n ph.d"
    ).split()
)
"""Words whose trailing period does not end a sentence (lower case, without the final period)."""


def split_steps(text: str, lang: Lang | None = None) -> list[str]:
    """The steps of ``text``, stripped, in order; empty or punctuation-only pieces are dropped.

    ``lang`` (``zh`` or ``en``) is detected from the text when not given.
    """
    if not text or not text.strip():
        return []
    lang = lang or detect_language(text)
    shadow = _mask_math(text)
    cuts = {0, len(text)}
    cuts.update(m.end() for m in re.finditer(r"\n", shadow))
    cuts.update(m.end() for m in _ZH_END.finditer(shadow) if not _between_digits(shadow, m.start()))
    cuts.update(m.end() for m in _EN_END.finditer(shadow) if _ends_sentence(shadow, m.start()))
    cuts.update(m.end() for m in _BECAUSE.finditer(shadow))
    if lang == "zh":
        cuts.update(m.end() for m in _ZH_DOT.finditer(shadow) if _ends_sentence(shadow, m.start()))
        cuts.update(m.start() for m in _ZH_MARKER.finditer(shadow))
    bounds = sorted(cuts)
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    return _tidy(pieces)


def split_reference(text: str, lang: Lang | None = None) -> list[str]:
    """Reference steps of a teacher's analysis.

    CK12 analyses are paragraphs separated by blank lines: each paragraph is one
    step (its own line breaks and sentences stay inside it). Text without a blank
    line is split like a chain, by :func:`split_steps`.
    """
    if not text or not text.strip():
        return []
    paragraphs = [p for p in _BLANK_LINE.split(text.strip()) if p.strip()]
    if len(paragraphs) < 2:
        return split_steps(text, lang)
    return _tidy([" ".join(line.strip() for line in p.splitlines() if line.strip()) for p in paragraphs])


def _mask_math(text: str) -> str:
    """``text`` with every LaTeX span replaced by placeholders of the same length, in linear time.

    The spans are those of one regular expression ``$$...$$ | $...$ | \\(...\\) | \\[...\\]`` (leftmost
    first, alternatives in that order, each closed by the nearest closer); but an opener with no closer
    after it is remembered here, where the expression scanned to the end of the text from every one.
    """
    pieces: list[str] = []
    done = pos = 0
    unclosed: set[str] = set()
    while (opener := _OPENER.search(text, pos)) is not None:
        start = opener.start()
        end = _math_end(text, start, unclosed)
        if end is None:
            pos = start + 1
            continue
        pieces += [text[done:start], _PLACEHOLDER * (end - start)]
        done = pos = end
    pieces.append(text[done:])
    return "".join(pieces)


def _math_end(text: str, start: int, unclosed: set[str]) -> int | None:
    """End of the math span starting at ``start``, if one does."""
    for open_, close in _DELIMITED:
        end = _closed_at(text, start, open_, close, unclosed)
        if end is not None:
            return end
        if open_ == "$$" and (inline := _INLINE.match(text, start)) is not None:
            return inline.end()  # the inline alternative comes second
    return None


def _closed_at(text: str, start: int, open_: str, close: str, unclosed: set[str]) -> int | None:
    if close in unclosed or not text.startswith(open_, start):
        return None
    at = text.find(close, start + len(open_) + 1)
    if at < 0:
        unclosed.add(close)  # no closer after this opener: none after any later one either
        return None
    return at + len(close)


def _between_digits(shadow: str, i: int) -> bool:
    return 0 < i < len(shadow) - 1 and shadow[i - 1].isdigit() and shadow[i + 1].isdigit()


def _ends_sentence(shadow: str, i: int) -> bool:
    """Whether the period-like mark at ``i`` ends a sentence (not an abbreviation or a decimal)."""
    if shadow[i] != ".":
        return True
    start = i
    while start > 0 and i - start < _LONGEST_ABBREVIATION and not shadow[start - 1].isspace():
        start -= 1
    if start == i:
        return True
    word = shadow[start:i]
    if word.isdigit() and _starts_line(shadow, start):
        return False  # "1." numbering a line
    bare = word.lstrip("(\"'“").lower()
    return bare not in ABBREVIATIONS and not _ACRONYM.match(word)


def _starts_line(text: str, i: int) -> bool:
    """Whether only spaces come between the line's start and ``i``."""
    while i > 0 and text[i - 1] != "\n" and text[i - 1].isspace():
        i -= 1
    return i == 0 or text[i - 1] == "\n"


def _tidy(pieces: list[str]) -> list[str]:
    """Strip pieces, glue punctuation-only pieces to the previous step and bare labels to the next."""
    steps: list[list[str]] = []
    """Each step as its parts: punctuation glued on by ``+=`` to a string copied it every time."""
    carry = ""
    for piece in pieces:
        piece = piece.strip(" \t\r\n\u3000")
        if not piece:
            continue
        if not _CONTENT.search(piece):
            if steps:
                steps[-1].append(piece)
            continue
        if carry:
            piece = carry + (" " if carry[-1].isascii() and piece[0].isascii() else "") + piece
            carry = ""
        if _BARE_LABEL.match(piece):
            carry = piece
            continue
        steps.append([piece])
    if carry:
        steps.append([carry])
    return ["".join(parts) for parts in steps]
