"""Judgment answers in 0/1 ("1 0 0 1", "1,0,0,1", "①1 ②0", "1. 1\\n2. 0"), read only with a legend.

A 1 or a 0 says nothing by itself: most models mean 1 = 正确, but nothing in the output says so, and "1" is also a
count, a label or a result ("结果是1"). So 0/1 verdicts are read only where the answer or the question's stem gives
the legend for both digits, opposite ("用1表示正确，0表示错误", "正确的写1，错误的写0", "1 = true, 0 = false"; never
"F=0, T=1": in a physics stem a force and a period); without one the answer stays unparsed. The legend's own verdict
words are blanked, and the 0/1 digits that stand as verdicts become the T or F they mean, in place (the text keeps its
length), for the judgment reader: a run or a list of 0/1 alone ("1001", "1 0 0 1", "1、0、0、1"), or one right after
a statement's label ("①1", "(2) 0", "1. 1").
"""

from __future__ import annotations

import re

from runners.extraction.text import fold
from runners.extraction.verdicts import after_label, labels

_SPELLED = r"(?:不正确|不对|正确|错误|对|错|√|×|(?i:true|false|correct|incorrect|wrong))"
_WORD = rf"(?:{_SPELLED}|[TF])"
_TRUE_WORDS = frozenset({"正确", "对", "√", "t", "true", "correct"})
# The digit first ("1表示正确", "用1表示正确", "1 = true"), or the word first ("正确的写1", "true = 1"); a letter
# first never ("合力F=0", "周期 T=1 s" in a physics stem are quantities).
_LEGEND = re.compile(
    rf"(?:(?<=[用以把将])|(?<![\w.]))(?P<digit>[01])[ \t]*(?:表示|代表|意味着|指|=|:|->|→|(?i:means|for)\b)[ \t]*"
    rf"(?P<word>{_WORD})"
    rf"|(?P<word2>{_SPELLED})[ \t]*(?:的[ \t]*)?"
    r"(?:(?:回答|填写?|写|记作|记为|记|打|用|标记?为?|答)[ \t]*|[=:][ \t]*)(?P<digit2>[01])(?![\w.])"
)
# 0/1 verdicts: a run or a list of them alone, or one after a label (both checked against the labels below)
_LIST = re.compile(
    r"(?<![A-Za-z0-9_.])[01](?:(?:[ \t]*[,、;][ \t]*|[ \t]+)[01])+(?![A-Za-z0-9_.])|(?<![\w.])[01]{2,}(?![\w.])"
)
_ONE = re.compile(r"(?<![\w.])[01](?=[ \t\n,;。!]|\.(?!\d)|$)")
_CIRCLED = re.compile(r"[①-⑳⑴-⒇]")


def with_legend(text: str, raw: str, stem: str) -> str:
    """``text`` (folded and masked; ``raw``: the same unfolded) with its 0/1 verdicts as T/F and its legend blanked,
    where it or ``stem`` gives one; else ``text`` unchanged."""
    legend, spans = _legend(text)
    if legend is None:
        legend, spans = _legend(fold(stem))[0], []  # "正确的填１": full width as the answer's text is folded
    if legend is None:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    plain = "".join("#" if _CIRCLED.match(r) else c for r, c in zip(raw, chars, strict=True))  # ① folds to 1
    label_ends = frozenset(label.end for label in labels(plain, raw))
    digits = [i for m in _LIST.finditer(plain) for i in range(m.start(), m.end()) if plain[i] in "01"]
    digits += [m.start() for m in _ONE.finditer(plain) if after_label(plain, m.start(), label_ends)]
    for i in digits:
        chars[i] = "T" if legend[plain[i]] else "F"
    return "".join(chars)


def _legend(text: str) -> tuple[dict[str, bool] | None, list[tuple[int, int]]]:
    """What 1 and 0 mean in ``text``, and where it says so; ``None`` unless both are given, opposite."""
    meant: dict[str, set[bool]] = {"0": set(), "1": set()}
    spans = []
    for m in _LEGEND.finditer(text):
        digit, word = m["digit"] or m["digit2"], (m["word"] or m["word2"]).lower()
        meant[digit].add(word in _TRUE_WORDS)
        spans.append(m.span())
    if all(len(values) == 1 for values in meant.values()) and meant["0"] != meant["1"]:
        return {digit: values.pop() for digit, values in meant.items()}, spans
    return None, []
