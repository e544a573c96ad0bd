"""Letter sequences: the order of a sorting question, one letter per blank of a cloze.

Sorting: the letter run after the last order/answer marker ("正确的顺序应该是：CBADE",
"C→B→A", "C-B-A-D-E", "C、B、A"), else the run at the start, else the last run
with as many letters as there are options, else the last run of two or more.

Cloze: one 【答案】 per blank with its letter ("（1）【答案】 B <eoa>", the format GAOKAO-Bench's prompts ask
for), else numbered pairs ("1. B 2. A", "(1)B", "1-B"), else a compact run of exactly
one letter per blank ("BADC"), else that many separated letters ("B A D C"),
else lines numbered per blank that hold one letter each ("1. 根据上下文选B").
Every letter must be one of its blank's options.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kg.records import Question
from runners.extraction.markers import ANSWERS_ARE, BRACKETED_ANSWER, ORDER_IS
from runners.extraction.text import Found, View

_ARROW = r"\s*(?:→|->|=>|—>|-->|>|-|—|,|、|;|/|\s)?\s*"


@lru_cache(maxsize=64)
def _run(labels: tuple[str, ...]) -> re.Pattern[str]:
    x = "(?:" + "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True)) + ")"
    return re.compile(rf"(?<![A-Za-z])\(?{x}\)?(?:{_ARROW}\(?{x}\)?)+(?![A-Za-z])")


@lru_cache(maxsize=64)
def _letter(labels: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True)))


def extract_sorting(view: View, question: Question) -> Found | None:
    """The option letters in the order the output gives them, or ``None``."""
    labels = tuple(question.option_labels) or tuple(dict.fromkeys(str(a) for a in question.answer))
    text = view.masked
    run, letter = _run(labels), _letter(labels)
    markers = list(ORDER_IS.finditer(text))
    if markers:
        match = run.match(text, markers[-1].end())
        if match:
            return Found(letter.findall(match.group()), match.start(), match.end(), "after-marker")
    runs = list(run.finditer(text))
    if not runs:
        return None
    if not text[: runs[0].start()].strip():
        first = runs[0]
        return Found(letter.findall(first.group()), first.start(), first.end(), "leading")
    full = [m for m in runs if len(letter.findall(m.group())) == len(labels)]
    chosen = full[-1] if full else runs[-1]
    return Found(letter.findall(chosen.group()), chosen.start(), chosen.end(), "full-run" if full else "last-run")


def extract_cloze(view: View, question: Question) -> Found | None:
    """One letter per blank, or ``None``."""
    groups = [[o.label for o in group] for group in question.blanks()]
    blanks = len(groups)
    if not blanks:
        return None
    every = tuple(sorted({label for group in groups for label in group}))
    x = "(?:" + "|".join(re.escape(label) for label in sorted(every, key=len, reverse=True)) + ")"
    text = view.masked
    marked = list(re.finditer(rf"{BRACKETED_ANSWER.pattern}({x})(?![A-Za-z])", view.text))  # 【】 are masked
    if len(marked) == blanks and _fits([m.group(1) for m in marked], groups):
        return Found([m.group(1) for m in marked], marked[0].start(), marked[-1].end(), "marked")
    markers = list(ANSWERS_ARE.finditer(text))
    for begin in ([markers[-1].end()] if markers else []) + [0]:
        found = _cloze_in(text, begin, groups, x)
        if found:
            return found
    return None


def _cloze_in(text: str, begin: int, groups: list[list[str]], x: str) -> Found | None:
    blanks = len(groups)
    pairs: dict[int, tuple[str, int, int]] = {}
    pair = re.compile(rf"(?<![\d.])\(?(\d{{1,2}})\s*\)?\s*[.、:\-)]?\s*\(?({x})\)?(?![A-Za-z])")
    for m in pair.finditer(text, begin):
        number = int(m.group(1))
        if 1 <= number <= blanks:
            pairs[number] = (m.group(2), m.start(), m.end())
    if len(pairs) == blanks:
        answer = [pairs[i][0] for i in range(1, blanks + 1)]
        if _fits(answer, groups):
            return Found(answer, min(p[1] for p in pairs.values()), max(p[2] for p in pairs.values()), "numbered")
    compact = re.compile(rf"(?<![A-Za-z])(?:{x}){{{blanks}}}(?![A-Za-z])")
    spaced = re.compile(rf"(?<![A-Za-z]){x}(?:\s*[,、;\s]\s*{x}){{{blanks - 1}}}(?![A-Za-z])")
    for pattern, rule in ((compact, "compact"), (spaced, "separated")):
        matches = list(pattern.finditer(text, begin))
        if matches:
            answer = re.findall(x, matches[-1].group())
            if _fits(answer, groups):
                return Found(answer, matches[-1].start(), matches[-1].end(), rule)
    lines: dict[int, tuple[str, int, int]] = {}
    item = re.compile(r"^\s*\(?(\d{1,2})\s*[.、:)]\s*(.*)$", re.M)
    lone = re.compile(rf"(?<![A-Za-z])({x})(?![A-Za-z])")
    for m in item.finditer(text, begin):
        number, letters = int(m.group(1)), set(lone.findall(m.group(2)))
        if 1 <= number <= blanks and len(letters) == 1:
            lines[number] = (letters.pop(), m.start(), m.end())
    if len(lines) == blanks:
        answer = [lines[i][0] for i in range(1, blanks + 1)]
        if _fits(answer, groups):
            return Found(answer, min(p[1] for p in lines.values()), max(p[2] for p in lines.values()), "numbered-lines")
    return None


def _fits(answer: list[str], groups: list[list[str]]) -> bool:
    return len(answer) == len(groups) and all(a in g for a, g in zip(answer, groups, strict=True))
