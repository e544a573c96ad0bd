"""Hand-labelled first wrong steps of real model answers to CK12 questions (``ck12-labels`` format).

The repository keeps only what was made here: the model's output, its steps as k12eval splits
them, the grade, and the labels, keyed by CK12 question id (``data/ck12_errors/``). The question
text, gold answer and teacher's analysis are CK12's and are joined from the public release at
read time (``$K12EVAL_CK12``, ``$K12EVAL_SHARED_DATA/ck12`` or ``../shared/data/ck12``), so the
labelled set needs the release beside it. One line per solution::

    {"id": "<ck12 id>/<model>", "ck12_id": "...", "model": "...", "mode": "zero-shot-cot",
     "subject": "数学", "type": "fill_in_blank", "steps": ["...", "..."], "extracted": ["12"],
     "graded_correct": false, "first_error": 2, "kind": "wrong_model", "note": "..."}

``first_error`` is 0-based, -1 for a solution with no wrong step; ``kind`` is one of :data:`KINDS`
(``null`` when there is no error). ``"answered": false`` (optional, true when absent) marks a
**non-answer**: an output that never answers (a repetition loop cut off by the token limit, the
question restated and nothing more). A solution with no wrong step whose run record says the loop
guard stopped it (``"finish_reason": "loop"``, :mod:`runners.loop_guard`, copied by
``scripts/ck12_errors.py``) is a non-answer unless ``"answered": true`` says otherwise: one notion of
a loop, from the run to the labels. Its steps may state nothing false (``first_error`` -1), but it
is not a correct solution: it is read as a wrong solution whose wrong step is unknown (kind
:data:`NO_ANSWER`, no step labels), so it counts with the wrong ones for AUROC and is left out of
first-step accuracy, never in the correct class.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.errors import InputError
from reasoning_metrics.metaeval._located import iter_records
from reasoning_metrics.metaeval.solution import LabelledSolution, from_first_error
from runners.loop_guard import FINISH_LOOP

if TYPE_CHECKING:
    from kg.records import Question

KINDS = ("calculation", "wrong_model", "misread", "false_fact", "logic", "unsupported")
"""Kinds of first wrong step: an arithmetic slip; a wrong model of the problem or a wrong formula;
the question misread (wrong quantity, condition or what is asked); a false statement of fact; an
invalid inference; a leap to a claim or value nothing before supports."""

NO_ANSWER = "no_answer"
"""The kind given to a non-answer (``"answered": false``): wrong, with no step to blame."""

CK12_ENV = "K12EVAL_CK12"


def ck12_root() -> Path:
    """Where the CK12 release is: ``$K12EVAL_CK12``, ``$K12EVAL_SHARED_DATA/ck12``, or ``../shared/data/ck12``."""
    if os.environ.get(CK12_ENV):
        return Path(os.environ[CK12_ENV])
    if os.environ.get("K12EVAL_SHARED_DATA"):
        return Path(os.environ["K12EVAL_SHARED_DATA"]) / "ck12"
    return Path.cwd().parent / "shared" / "data" / "ck12"


@cache
def ck12_questions(root: Path) -> dict[str, Question]:
    """Every question of the CK12 release at ``root`` by id (read once per process)."""
    from kg.importers import load_questions

    folder = root / "original_data" if (root / "original_data").is_dir() else root
    return {q.id: q for q in load_questions(folder, "ck12").questions}


def problem_text(question: Question) -> str:
    """The question as the model was shown it: the stem, then each option on its own line as ``A. text``
    (the stem alone where it already lists them, as GAOKAO-Bench's do)."""
    if question.extra.get("options_in_stem"):
        return question.stem.strip()
    lines = [question.stem.strip()]
    lines += [f"{option.label}. {option.text}" for option in question.options]
    return "\n".join(lines)


def read_ck12_labels(path: Path, root: Path | None = None) -> list[tuple[str, LabelledSolution]]:
    """Each solution of a labelled file with where it was read, its question joined from the CK12 release."""
    root = root or ck12_root()
    if not root.is_dir():
        raise InputError(
            f"{path}: the ck12-labels format joins questions from the CK12 release, not found at {root}; "
            f"set {CK12_ENV} to its folder"
        )
    return read_joined(path, ck12_questions(root.resolve()), "ck12_id", f"the CK12 release at {root}")


StepsOf = Callable[[str, dict[str, Any], str], Any]
"""``(where, record, question id) -> steps``: where a labelled file's steps come from, when not its records."""


def read_joined(
    path: Path, questions: Mapping[str, Question], key: str, release: str, steps_of: StepsOf | None = None
) -> list[tuple[str, LabelledSolution]]:
    """Each solution of a labelled file with where it was read: its question found by the record's ``key``
    field in ``questions`` (the release, as ``release`` words it), its steps the record's ``steps`` or what
    ``steps_of`` reads for it."""
    solutions = []
    for where, record in iter_records(path):
        question_id = string_field(where, record, key)
        question = questions.get(question_id)
        if question is None:
            raise InputError(f"{where}, field '{key}': {question_id!r} is not in {release}")
        steps = record.get("steps") if steps_of is None else steps_of(where, record, question_id)
        if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
            hint = "" if steps_of is None else " (or 'results')"
            raise InputError(f"{where}, field 'steps': expected a non-empty list of step texts{hint}")
        solutions.append((where, labelled(where, record, question, steps)))
    return solutions


def labelled(where: str, record: dict[str, Any], question: Question, steps: list[str]) -> LabelledSolution:
    """One labelled solution from its label ``record`` (``first_error``, ``kind``, ``answered``, ``note``...),
    the question it answers and its steps; a bad label raises :class:`InputError` naming ``where`` and the field."""
    first = record.get("first_error")
    if not isinstance(first, int) or isinstance(first, bool) or not -1 <= first < len(steps):
        raise InputError(f"{where}, field 'first_error': expected -1 or a step index below {len(steps)}")
    kind = record.get("kind")
    if first >= 0 and kind not in KINDS:
        raise InputError(f"{where}, field 'kind': expected one of {', '.join(KINDS)}, got {kind!r}")
    # A loop with no wrong step never answered (a wrong step, when there is one, is what counts).
    answered = record.get("answered", not (record.get("finish_reason") == FINISH_LOOP and first < 0))
    if not isinstance(answered, bool):
        raise InputError(f"{where}, field 'answered': expected true or false, got {answered!r}")
    if not answered and first >= 0:
        raise InputError(f"{where}, field 'answered': a non-answer has first_error -1, not {first}")
    meta: dict[str, Any] = {
        "question_id": question.id,  # the dev/confirm split key: a question's answers stay in one half
        "kind": kind if first >= 0 else None if answered else NO_ANSWER,
        "subject": question.subject,
        "type": question.type.value,
        "model": record.get("model"),
        "graded_correct": record.get("graded_correct"),
        "gold": [str(a) for a in question.answer],
        "options": [[o.label, o.text] for o in question.options],  # rollouts grade choices against them
        "options_in_stem": bool(question.extra.get("options_in_stem")),  # the problem text is the stem
        "analysis": question.analysis,
        "extracted": record.get("extracted"),
    }
    solution = from_first_error(string_field(where, record, "id"), problem_text(question), steps, first, "zh", meta)
    if not answered:  # wrong, with no step to blame: out of the correct class and of first-step scores
        solution = replace(solution, has_error=True, first_error=None, step_labels=(None,) * len(steps))
    return solution


def string_field(where: str, record: dict[str, Any], name: str) -> str:
    """The record's non-empty text field ``name``, or :class:`InputError` naming ``where`` and the field."""
    value = record.get(name)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}, field '{name}': expected a non-empty string")
    return value
