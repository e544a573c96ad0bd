"""OpenCompass's CircularEval: each single-choice question asked once per rotation of its options, right only if
every rotation is answered right.

As OpenCompass defines it (``opencompass/datasets/circular.py``): for options ``A B C D`` the patterns are the
rotations ``ABCD``, ``BCDA``, ``CDAB``, ``DABC`` (``get_circular_patterns``); under a pattern the option first
labelled ``option_keys[i]`` is relabelled ``pattern[i]`` and the gold letter follows it
(``make_circular_items``). Its ``CircularEvaluator`` reports ``acc_origin`` (the ``ABCD`` items alone),
``acc_circular`` (every rotation counted as a question), ``perf_circular`` (questions whose every rotation is
right: *the* circular accuracy) and ``more_{k}_circular`` (at least k rotations right). :func:`circular_stats`
computes the same from a run's records, with counts and Wilson intervals.

A rotation is its own question in the run: ``<id>~circular-<PATTERN>`` (``~circular-ABCD`` is the original
order), ``variant`` ``circular``, ``extra["circular"]`` naming the question it rotates and the pattern, so each
rotation's answer is recorded, resumed and reported like any other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from kg.intervals import wilson_interval
from kg.records import Option, Question, QuestionType

CIRCULAR = "circular"
"""The variant's name (``--circular`` is ``--variant circular``)."""
SUFFIX = "~circular-"


def circular_patterns(labels: Sequence[str]) -> list[tuple[str, ...]]:
    """The rotations of ``labels``, the original order first (OpenCompass's ``get_circular_patterns``)."""
    doubled = list(labels) * 2
    return [tuple(doubled[i : i + len(labels)]) for i in range(len(labels))]


def rotate(question: Question, pattern: Sequence[str]) -> Question:
    """``question`` under ``pattern``: the option labelled ``labels[i]`` becomes ``pattern[i]``, and so does its gold."""
    labels = question.option_labels
    moved = dict(zip(labels, pattern, strict=True))
    texts = {moved[o.label]: o.text for o in question.options}
    name = "".join(pattern)
    return question.model_copy(
        update={
            "id": f"{question.id}{SUFFIX}{name}",
            "options": [Option(label=label, text=texts[label]) for label in labels],
            "answer": [moved[str(question.answer[0])]],
            "variant": CIRCULAR,
            "extra": {**question.extra, "circular": {"of": question.id, "pattern": name}},
        }
    )


def why_not_circular(question: Question) -> str | None:
    """Why ``question`` has no circular variant, or ``None`` when it has one."""
    if question.type is not QuestionType.SINGLE:
        return f"{question.type.value} questions have no circular variant (CircularEval rotates one right option)"
    if question.extra.get("options_in_stem"):
        return "its options are written in its stem (GAOKAO-Bench): they cannot be rotated"
    return None


def circular_questions(question: Question) -> list[Question]:
    """The rotations of a single-choice ``question``, the original order first."""
    return [rotate(question, pattern) for pattern in circular_patterns(question.option_labels)]


def origin_of(question_id: str) -> tuple[str, str] | None:
    """``(the rotated question's id, the pattern)`` of a rotation's id, else ``None``."""
    base, sep, pattern = question_id.rpartition(SUFFIX)
    return (base, pattern) if sep and base and pattern.isalpha() else None


class Rate(BaseModel):
    """A count of right answers, with its share and 95% Wilson interval."""

    model_config = ConfigDict(extra="forbid")

    correct: int
    n: int
    accuracy: float | None
    low: float | None
    high: float | None


def _rate(correct: int, n: int) -> Rate:
    low, high = wilson_interval(correct, n) if n else (None, None)
    return Rate(correct=correct, n=n, accuracy=correct / n if n else None, low=low, high=high)


class CircularStats(BaseModel):
    """OpenCompass's CircularEvaluator figures over the questions whose every rotation was graded."""

    model_config = ConfigDict(extra="forbid")

    questions: int
    """Questions with every rotation graded (only those count; ``incomplete`` the others)."""
    incomplete: int
    """Questions some of whose rotations have no grade yet (not asked, failed, or in another shard)."""
    origin: Rate
    """``acc_origin``: the original order alone, the plain accuracy."""
    rotations: Rate
    """``acc_circular``: every rotation counted as one question."""
    circular: Rate
    """``perf_circular``: right only when every rotation is: the circular accuracy."""
    at_least: dict[int, Rate]
    """``more_{k}_circular``: questions with at least k rotations right, k from 1 to one less than all."""


def _original(answers: dict[str, bool | None]) -> str:
    """The pattern that keeps the original order (its letters in order: ``ABCD``)."""
    return next(pattern for pattern in answers if list(pattern) == sorted(pattern))


def circular_stats(graded: Iterable[tuple[str, bool | None]]) -> CircularStats | None:
    """The circular figures of a run's ``(question id, correct)`` pairs; ``None`` when it holds no rotation."""
    by_origin: dict[str, dict[str, bool | None]] = defaultdict(dict)
    for question_id, correct in graded:
        found = origin_of(question_id)
        if found is not None:
            by_origin[found[0]][found[1]] = correct
    if not by_origin:
        return None
    complete = {
        origin: answers
        for origin, answers in by_origin.items()
        if len(answers) == len(next(iter(answers))) and all(v is not None for v in answers.values())
    }
    rights = {origin: sum(bool(v) for v in answers.values()) for origin, answers in complete.items()}
    sizes = {origin: len(answers) for origin, answers in complete.items()}
    origin_right = sum(bool(answers[_original(answers)]) for answers in complete.values())
    most = max(sizes.values(), default=0)
    return CircularStats(
        questions=len(complete),
        incomplete=len(by_origin) - len(complete),
        origin=_rate(origin_right, len(complete)),
        rotations=_rate(sum(rights.values()), sum(sizes.values())),
        circular=_rate(sum(rights[o] == sizes[o] for o in complete), len(complete)),
        at_least={k: _rate(sum(r >= k for r in rights.values()), len(complete)) for k in range(1, most)},
    )
