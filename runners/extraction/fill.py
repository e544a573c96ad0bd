"""Fill-in answers: one string per blank, as written (grading normalises them).

The answer is what the last statement of an answer says: the text after an answer marker
("正确答案是：", "故答案为", "应填", "the answer is"), after GSM8K's ``####`` or a line's ``A:``,
or inside ``\\boxed{...}``, whichever comes last. Without any, the whole output when it is
one line, else its last line if it concludes (所以, 因此, 故, ∴, =, 答：, so, therefore ...) or
is a value alone (at most 12 characters, no space), and does not stop mid-formula; either *if it is short enough to be an answer* (at most
:data:`BARE_ANSWER` characters a blank) and not a refusal ("无法", "不知道", "cannot" ...). Any
other output is a chain without a conclusion (cut off, looping) or text that is no answer,
and is unparsed, as lm-eval's ``[invalid]`` (#27 item 9). With several blanks it is split by
numbering ("1. x 2. y", "(1)x(2)y", "①x②y", "第一空：x") or by the first separator that gives
exactly as many parts as blanks (；, ;, newline, 、, ，, ,, spaces).
"""

from __future__ import annotations

import re

from runners.extraction.markers import BOXED, FILL_ANSWER, HASHES
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
# A final-answer line: GSM8K's "#### 18", the Q:/A: layout's "A: 18".
_FINAL_LINE = re.compile(rf"{HASHES}[ \t]*|^[ \t]*A[ \t]*[:：][ \t]*", re.M)
_BOXED = re.compile(rf"{BOXED}\s*\{{")
# The last line of a chain with no marker answers when it concludes: 所以/因此/故/∴/=/答：/so ...,
# and does not stop in the middle of a formula or a word list.
_CONCLUDES = re.compile(r"[=＝∴]|所以|因此|故|综上|解得|答\s*[:：]|(?i:\b(?:so|therefore|thus|hence)\b)")
# ... or when it is a value alone: "0", "右；1", "x=5", "春风又绿江南岸".
_BARE_VALUE = re.compile(r"\S{1,12}")
_UNFINISHED = re.compile(r"(?:[=＝+\-*/×÷(（\[{,，、:：\\]|<<[^>]*)\s*$")
BARE_ANSWER = 40
"""Characters a blank's answer may have, stripped, when no marker says it is the answer. Set before
measuring, not tuned; scripts/fill_parsed_rate.py gives the parsed rates it yields on real outputs,
development and confirmation halves apart."""
_TRIM = " \t\n.。,;:、\"'“”‘’`*"


def extract_fill(view: View, blanks: int) -> Found | None:
    """``blanks`` strings (fewer or more when the output does not split that way), or ``None``."""
    raw = view.raw[view.start : view.start + len(view.text)]
    # Folding turns ① into 1; keep circled numbers, they number blanks.
    text = "".join(r if r in _CIRCLED else t for r, t in zip(raw, view.text, strict=True))
    markers = list(FILL_ANSWER.finditer(text))
    final = list(_FINAL_LINE.finditer(text))
    boxed = _last_boxed(text)
    marker_at = markers[-1].end() if markers else -1
    final_at = final[-1].end() if final else -1
    if boxed is not None and boxed[0] > max(marker_at, final_at):
        begin, end = boxed
        rule = "boxed"
    elif markers or final:
        begin, rule = max(marker_at, final_at), "after-marker"
        end = _end_of_answer(text, begin, blanks)
    else:
        lines = [(m.start(), m.end()) for m in re.finditer(r"[^\n]+", text) if m.group().strip()]
        if not lines:
            return None
        begin, end = lines[-1]
        rule = "whole" if len(lines) == 1 else "last-line"
        bare = text[begin:end].strip()
        if _REFUSAL.search(bare) or len(bare) > BARE_ANSWER * blanks:
            return None
        concludes = _CONCLUDES.search(bare) or _BARE_VALUE.fullmatch(bare)
        if rule == "last-line" and (not concludes or _UNFINISHED.search(bare)):
            return None  # a line of the chain (or of a chain cut off), not its conclusion
    segment = text[begin:end]
    parts = split_blanks(segment, blanks)
    if not parts:
        return None
    offset = len(segment) - len(segment.lstrip())
    return Found(parts, begin + offset, end, rule)


def _last_boxed(text: str) -> tuple[int, int] | None:
    """Where the content of the last ``\\boxed{...}`` lies (braces balanced), if there is one closed."""
    openings = [m.end() for m in _BOXED.finditer(text)]
    if not openings:
        return None
    closing: dict[int, int] = {}  # the index after a "{" -> the index of its "}" (one pass: bounded time)
    stack: list[int] = []
    for i, char in enumerate(text):
        if char == "{":
            stack.append(i + 1)
        elif char == "}" and stack:
            closing[stack.pop()] = i
    for start in reversed(openings):
        if start in closing:
            return start, closing[start]
    return None


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
