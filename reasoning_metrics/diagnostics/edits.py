"""Edits inside one step: negate it, change one of its numbers, change one of its operations.

Each edit returns a :class:`TextEdit` saying exactly what was replaced and where,
or ``None`` when the step has nothing to edit. Choices are made with the
``random.Random`` passed in, so the same seed gives the same edit.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class TextEdit:
    """``before`` at ``position`` in the original text replaced by ``after``."""

    text: str
    """The edited text."""
    position: int
    before: str
    after: str


def _apply(text: str, start: int, end: int, after: str) -> TextEdit:
    return TextEdit(text[:start] + after + text[end:], start, text[start:end], after)


# Negation rules, tried in order; the first that matches anywhere in the step is applied at its first match.
_EN_NEGATIONS: list[tuple[str, str]] = [
    (r"\b(is|are|was|were|does|do|did|can|will|should|must|could|would) not\b", r"\1"),
    (r"\bcannot\b", "can"),
    (r"\b(is|are|was|were|does|do|did|should|must|could|would|will)\b", r"\1 not"),
    (r"\bcan\b", "cannot"),
    (r"\bhas\b", "does not have"),
    (r"\bhave\b", "do not have"),
    (r"\bmore\b", "fewer"),
    (r"\bless\b", "more"),
    (r"\bgreater\b", "smaller"),
    (r"\bincrease(s|d)?\b", r"decrease\1"),
]
_ZH_NEGATIONS: list[tuple[str, str]] = [
    (r"不是", "是"),
    (r"(?<![但于还总只或要可若凡不即])是", "不是"),
    (r"不能", "能"),
    (r"(?<!不)能(?!量|力|源)", "不能"),
    (r"不可以", "可以"),
    (r"(?<!不)可以", "不可以"),
    (r"(?<!不)等于", "不等于"),
    (r"大于", "小于"),
    (r"小于", "大于"),
    (r"增加", "减少"),
    (r"减少", "增加"),
    (r"(?<!不)成立", "不成立"),
    (r"正确", "错误"),
    (r"(?<!不)相等", "不相等"),
]
_MATH_NEGATIONS: list[tuple[str, str]] = [(r"\\neq?\b|≠", "="), (r"(?<![<>!=≤≥\\])=(?!=)", "≠")]


def negate(text: str, lang: str) -> TextEdit | None:
    """The step with its first negatable statement negated (Chinese or English), else ``=`` as ``≠``."""
    rules = (_ZH_NEGATIONS if lang == "zh" else _EN_NEGATIONS) + _MATH_NEGATIONS
    for pattern, replacement in rules:
        match = re.search(pattern, text, flags=re.IGNORECASE if lang != "zh" else 0)
        if match:
            return _apply(text, match.start(), match.end(), match.expand(replacement))
    return None


_NUMBER = re.compile(r"(?<![A-Za-z0-9_.\\^])\d+(?:\.\d+)?")


def change_number(text: str, rng: random.Random) -> TextEdit | None:
    """One number of the step (chosen at random) replaced by a different one with as many decimals."""
    matches = [m for m in _NUMBER.finditer(text) if not _is_list_marker(text, m)]
    if not matches:
        return None
    match = rng.choice(matches)
    whole, _, decimals = match.group(0).partition(".")
    value = int(whole)
    if value < 10:
        new_whole = rng.choice([v for v in range(1, 10) if v != value])
    else:
        new_whole = value + rng.choice([d for d in range(-9, 10) if d])
    new = f"{new_whole}.{decimals}" if decimals else str(new_whole)
    return _apply(text, match.start(), match.end(), new)


def _is_list_marker(text: str, match: re.Match[str]) -> bool:
    """``1.`` or ``2)`` at the start of a line numbers a list; changing it changes nothing."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    return text[line_start : match.start()].strip() == "" and text[match.end() : match.end() + 1] in (
        ".",
        ")",
        "、",
    )


_SWAPS = {
    "\\times": "\\div",
    "\\div": "\\times",
    "\\cdot": "\\div",
    "×": "÷",
    "÷": "×",
    "*": "/",
    "/": "*",
    "+": "-",
    "-": "+",
}
_OPERATION = re.compile(
    r"\\times|\\div|\\cdot|[×÷]"
    r"|(?<=[\d)\s])[*/](?=[\s\d(])"
    r"|(?<=[\d)}\s])[+\-](?=[\s\d({\\])"
    r"|(?<=[\d)])\s*x\s*(?=\d)"
)


def change_operation(text: str, rng: random.Random) -> TextEdit | None:
    """One arithmetic operator of the step (chosen at random) swapped: + and -, × and ÷, * and /, x and /."""
    matches = list(_OPERATION.finditer(text))
    if not matches:
        return None
    match = rng.choice(matches)
    operator = match.group(0)
    after = operator.replace("x", "/") if operator.strip() == "x" else _SWAPS[operator]
    return _apply(text, match.start(), match.end(), after)
