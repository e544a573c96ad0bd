"""``--subjects``: the subjects a run asks, named as a user knows them.

A subject is taken by its Chinese name (计算机网络, the graph's subject), by the bank's own key
(``computer_network``, ``extra["subject_key"]``, the hub's configuration name), by its English name where the
source gives one, or by the task name lm-evaluation-harness gives it (``ceval-valid_computer_network``,
``cmmlu_agronomy``: the protocol's ``task_prefixes`` before the key). A name that matches no subject of the
bank is an error listing the valid ones, never a filter that silently keeps nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg.errors import SettingError
from kg.records import Question

SHOWN = 80
"""Subjects listed at most in the error for a name that matches none."""


def subject_names(question: Question, task_prefixes: Sequence[str] = ()) -> set[str]:
    """Every name ``--subjects`` takes for ``question``'s subject, case-folded."""
    names = {question.subject}
    for field in ("subject_key", "subject_en"):
        value = question.extra.get(field)
        if isinstance(value, str) and value:
            names.add(value)
    key = question.extra.get("subject_key")
    if isinstance(key, str) and key:
        names.update(prefix + key for prefix in task_prefixes)
    return {name.casefold() for name in names}


def filter_subjects(
    questions: Sequence[Question], wanted: Sequence[str], task_prefixes: Sequence[str] = ()
) -> list[Question]:
    """The questions of the ``wanted`` subjects (every question when none is named), in bank order.

    Raises :class:`InputError` naming each name that matches no subject of ``questions``, with the valid ones.
    """
    if not wanted:
        return list(questions)
    names = [subject_names(q, task_prefixes) for q in questions]
    asked = {name.strip().casefold(): name.strip() for name in wanted if name.strip()}
    known = set().union(*names) if names else set()
    missing = [shown for folded, shown in asked.items() if folded not in known]
    if missing:
        raise SettingError(
            "subjects",
            ", ".join(missing),
            f"no subject of this bank is called so; valid: {valid_subjects(questions)}",
            quoted=False,
        )
    return [q for q, held in zip(questions, names, strict=True) if held & asked.keys()]


def valid_subjects(questions: Sequence[Question]) -> str:
    """The bank's subjects as ``--subjects`` takes them: ``key (中文名)``, or the Chinese name alone."""
    seen: dict[str, str] = {}
    for question in questions:
        key = question.extra.get("subject_key")
        shown = (
            f"{key} ({question.subject})"
            if isinstance(key, str) and key and key != question.subject
            else question.subject
        )
        seen.setdefault(shown, shown)
    listed = sorted(seen)
    more = f" ... and {len(listed) - SHOWN} more" if len(listed) > SHOWN else ""
    return ", ".join(listed[:SHOWN]) + more
