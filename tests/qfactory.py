"""Small hand-written questions for the prompting, extraction and grading tests (no shared data copied)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg.records import Knowledge, Option, Question, QuestionType

KNOWLEDGE = Knowledge(level1="代数", level2="一次函数")


def make(qtype: QuestionType, answer: list[Any], options: Sequence[Option] = (), **fields: Any) -> Question:
    """A question with defaults for everything the tests do not care about."""
    defaults: dict[str, Any] = {
        "id": "q1",
        "source": "test",
        "subject": "数学",
        "stem": "题干",
        "knowledge": KNOWLEDGE,
    }
    defaults.update(fields)
    return Question(type=qtype, options=list(options), answer=answer, **defaults)


def lettered(texts: Sequence[str]) -> list[Option]:
    """Options A, B, C ... with the given texts."""
    return [Option(label=chr(65 + i), text=t) for i, t in enumerate(texts)]


def single(texts: Sequence[str] = ("上海", "北京", "广州", "深圳"), answer: str = "B", **fields: Any) -> Question:
    """A single-choice question (default: 中国的首都, answer B 北京)."""
    fields.setdefault("stem", "中国的首都是（  ）")
    return make(QuestionType.SINGLE, [answer], lettered(texts), **fields)


def multiple(
    texts: Sequence[str] = ("2", "3", "4", "5"), answer: Sequence[str] = ("A", "B", "D"), **fields: Any
) -> Question:
    """A multiple-choice question (default: which are primes, answer ABD)."""
    fields.setdefault("stem", "下列数中是质数的有（  ）")
    return make(QuestionType.MULTIPLE, sorted(answer), lettered(texts), **fields)


def judgment(statements: Sequence[str], answer: Sequence[bool], **fields: Any) -> Question:
    """A judgment question with numbered statements."""
    fields.setdefault("stem", "判断下列说法是否正确。")
    options = [Option(label=str(i + 1), text=t) for i, t in enumerate(statements)]
    return make(QuestionType.JUDGMENT, list(answer), options, **fields)


def fill(answer: Sequence[str], **fields: Any) -> Question:
    """A fill-in question with one gold string per blank."""
    fields.setdefault("stem", "一个数的 $$\\underline{}$$ 是它本身。")
    return make(QuestionType.FILL, list(answer), **fields)


def sorting(texts: Sequence[str], order: str, **fields: Any) -> Question:
    """A sorting question; ``order`` is the gold letter order."""
    fields.setdefault("stem", "将下列句子排成一段对话。")
    return make(QuestionType.SORTING, list(order), lettered(texts), **fields)


def cloze(blanks: Sequence[Sequence[str]], answer: str, **fields: Any) -> Question:
    """A cloze question: option texts per blank (lettered from A in each blank), one gold letter per blank."""
    fields.setdefault("stem", "I ( 1 ) a student. She ( 2 ) my friend.")
    options = [
        Option(label=chr(65 + i), text=t, blank=b + 1) for b, texts in enumerate(blanks) for i, t in enumerate(texts)
    ]
    return make(QuestionType.CLOZE, list(answer), options, **fields)
