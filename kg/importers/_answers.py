"""Gold answers in their usual source forms (``"BD"``, ``"A,C"``, ``"T,F"``, ``"√×"``, ``"50;0.8"``), normalised per type."""

from __future__ import annotations

import unicodedata

from kg.records import QuestionType

TRUE_WORDS = frozenset({"T", "√", "对", "正确", "TRUE", "Y", "YES"})
FALSE_WORDS = frozenset({"F", "×", "X", "错", "错误", "FALSE", "N", "NO"})
CONVENTIONS = (
    frozenset({"T", "F", "TRUE", "FALSE", "Y", "N", "YES", "NO"}),
    frozenset({"√", "×", "X"}),
    frozenset({"对", "错", "正确", "错误"}),
)
"""The ways of writing true/false; one answer keeps to one of them, so ``TX`` (a letter with the
check-mark notation's X) is a typo to report, not two statements. The Latin letters are one
notation: the CK12 release writes ``TTNFT`` once, N for no."""
_LETTER_SEPARATORS = ",，、;； "


def parse_answer(raw: str, qtype: QuestionType) -> list[str] | list[bool]:
    """``raw`` normalised for ``qtype`` (see :mod:`kg.records`); ``ValueError`` says what was expected."""
    text = raw.strip()
    if qtype is QuestionType.FILL:
        blanks = [b.strip() for b in text.split(";")]
        if not any(blanks):
            raise ValueError("empty fill-in answer")
        return blanks
    if qtype is QuestionType.JUDGMENT:
        return parse_judgments(text)
    # A Chinese keyboard types full-width letters: "Ａ、Ｃ" is the answer AC, not an error.
    letters = [
        c.upper() for c in unicodedata.normalize("NFKC", text) if not c.isspace() and c not in _LETTER_SEPARATORS
    ]
    if not letters:
        raise ValueError("empty answer; expected option letters")
    if not all("A" <= c <= "Z" for c in letters):
        raise ValueError(f"expected option letters, got {raw!r}")
    if qtype is QuestionType.MULTIPLE:
        return sorted(set(letters))
    return letters


def parse_judgments(text: str) -> list[bool]:
    """``"FFTF"``, ``"√×"``, ``"对,错"`` ... as one bool per statement."""
    tokens = [t for t in _split_judgments(unicodedata.normalize("NFKC", text)) if t]
    if not tokens:
        raise ValueError("empty answer; expected T/F (or √/×, 对/错) per statement")
    values: list[bool] = []
    for token in tokens:
        upper = token.upper()
        if upper in TRUE_WORDS:
            values.append(True)
        elif upper in FALSE_WORDS:
            values.append(False)
        else:
            raise ValueError(f"expected T/F (or √/×, 对/错) per statement, got {token!r}")
    used = {t.upper() for t in tokens}
    if not any(used <= convention for convention in CONVENTIONS):
        raise ValueError(f"expected T/F (or √/×, 对/错) per statement in one notation, got {text!r}")
    return values


def _split_judgments(text: str) -> list[str]:
    for sep in (",", "，", ";", "；", " ", "、"):
        if sep in text:
            return [t.strip() for t in text.split(sep)]
    if text.upper() in TRUE_WORDS | FALSE_WORDS and len(text) > 1:
        return [text]
    return list(text)
