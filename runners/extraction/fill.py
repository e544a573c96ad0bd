"""Fill-in answers: one string per blank, as written (grading normalises them).

The answer is the text after the last answer marker ("正确答案是：", "故答案为", "应填",
"the answer is") or, without one, the whole output when it is one line, else its
last line (unless it is a refusal: "无法", "不知道", "cannot" ...). With several blanks it is split by numbering ("1. x 2. y", "(1)x(2)y",
"①x②y", "第一空：x") or by the first separator that gives exactly as many parts as
blanks (；, ;, newline, 、, ，, ,, spaces).
"""

from __future__ import annotations

import re

from runners.extraction.markers import FILL_ANSWER
from runners.extraction.text import Found, View

_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
_ORDINALS = "一二三四五六七八九十"
_NUMBER = re.compile(
    rf"\(\s*(?P<paren>\d{{1,2}})\s*\)|(?P<circled>[{_CIRCLED}])|(?:^|(?<=[\s;,、]))(?P<dot>\d{{1,2}})\s*[.、:)](?!\d)"
    rf"|第\s*(?P<ordinal>[{_ORDINALS}\d]{{1,2}})\s*(?:个)?(?:空|处|问)\s*:?"
)
_REFUSAL = re.compile(
    r"无法(?:回答|确定|判断|作答|给出|得出|解答)|不知道|不确定|不能确定|抱歉|对不起"
    r"|(?i:cannot|can't|unable to|not sure|sorry|i don't know)"
)
_PARAGRAPH_END = re.compile(r"\n\s*\n")
# A full stop ends the answer, but not the one in "Ms. Brown".
_SENTENCE_END = re.compile(r"[。\n]|(?<!\bMr)(?<!\bMs)(?<!\bDr)(?<!\bSt)(?<!\bMrs)(?<!\bNo)\.(?:\s|$)")
_SEPARATORS = (";", "\n", "、", ",", " ")
_TRIM = " \t\n.。,;:、\"'“”‘’`*"


def extract_fill(view: View, blanks: int) -> Found | None:
    """``blanks`` strings (fewer or more when the output does not split that way), or ``None``."""
    raw = view.raw[view.start : view.start + len(view.text)]
    # Folding turns ① into 1; keep circled numbers, they number blanks.
    text = "".join(r if r in _CIRCLED else t for r, t in zip(raw, view.text, strict=True))
    markers = list(FILL_ANSWER.finditer(text))
    if markers:
        begin, rule = markers[-1].end(), "after-marker"
        end = _end_of_answer(text, begin, blanks)
    else:
        lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group().strip()]
        if not lines:
            return None
        begin, end = lines[-1]
        rule = "whole" if len(lines) == 1 else "last-line"
        if _REFUSAL.search(text[begin:end]):
            return None
    segment = text[begin:end]
    parts = split_blanks(segment, blanks)
    if not parts:
        return None
    offset = len(segment) - len(segment.lstrip())
    return Found(parts, begin + offset, end, rule)


def _end_of_answer(text: str, begin: int, blanks: int) -> int:
    """One blank: the answer ends at the sentence's end; several: at the paragraph's end."""
    rest = text[begin:]
    lead = len(rest) - len(rest.lstrip())
    stop = (_PARAGRAPH_END if blanks > 1 else _SENTENCE_END).search(rest, lead)
    return begin + (stop.start() if stop else len(rest))


def split_blanks(segment: str, blanks: int) -> list[str]:
    """The answer text cut into ``blanks`` parts, if it can be; else as many as it gives."""
    text = segment.strip(_TRIM) or segment.strip()
    if not text:
        return []
    if blanks == 1:
        return [_clean(text)]
    numbered = _by_numbers(text)
    if len(numbered) == blanks:
        return numbered
    for sep in _SEPARATORS:
        parts = [_clean(p) for p in text.split(sep)]
        parts = [p for p in parts if p]
        if len(parts) == blanks:
            return parts
    parts = [_clean(p) for p in text.split(";")]
    return numbered or [p for p in parts if p]


def _by_numbers(text: str) -> list[str]:
    """Parts numbered 1, 2, 3 ... from the start of the text; none if the numbering is not that."""
    marks = list(_NUMBER.finditer(text))
    if not marks or marks[0].start() != 0 or [_number(m) for m in marks] != list(range(1, len(marks) + 1)):
        return []
    parts = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        part = _clean(text[mark.end() : end])
        if part:
            parts.append(part)
    return parts


def _number(mark: re.Match[str]) -> int:
    if mark.group("circled"):
        return _CIRCLED.index(mark.group("circled")) + 1
    ordinal = mark.group("ordinal")
    if ordinal is not None:
        return int(ordinal) if ordinal.isdigit() else _ORDINALS.index(ordinal) + 1 if len(ordinal) == 1 else 0
    return int(mark.group("paren") or mark.group("dot"))


def _clean(part: str) -> str:
    # A blank whose answer is a punctuation mark (语文 punctuation questions) keeps it.
    return part.strip(_TRIM) or part.strip()
