"""GAOKAO-Bench's released scorer for its objective questions, ported rule for rule, for the scoring rate it prints.

The release (github.com/OpenLMLab/GAOKAO-Bench at ``6dbb24f``, Apache-2.0) reads the answer out of a model's
text with ``extract_choice_answer`` of ``Bench/bench_function.py`` and scores a folder of result files with
``obj_score_eval`` of ``Bench/OBJ_score_evaluation.py``. :func:`release_extract` and :func:`release_points`
are those two functions; the rules, with their quirks kept:

* ``single_choice``: the *last* capital ``A``-``D`` anywhere in the text (``re.findall`` over the reversed
  text), whatever it is part of (``DNA``, ``B <eoa>``, a formula).
* ``multi_question_choice``: the letter after each ``【答案】`` when there are exactly as many of them as the
  record's questions; otherwise the first capitals ``A``-``Z`` of the text, one per question.
* ``multi_choice`` (physics): whitespace removed, every ``A``-``D`` after the first ``【答案】`` joined in
  order (``answer_index > 0``: a text that *starts* with ``【答案】`` is read from its last ten characters
  instead), else those of the last ten characters.
* ``five_out_of_seven`` (七选五): the first five capitals ``A``-``G`` of the text.
* Points: a record's answer list shorter or longer than its gold is all wrong (``check_length_equal``); each
  of its questions is worth the record's ``score``; physics (the scorer's subject ``Physics``) gives 6 for
  the exact letters, 3 when every letter given is right but some are missing, else 0 (hard-coded 6 and 3).
  The scoring rate is points earned over points possible, per file, per subject and over all.

Measured with ``k12eval run gaokao -b replay -m gpt-4-0314 -B path=.../Results/gpt_4_0314_obj`` (docs/report.md):
this extraction reads the release's own ``model_answer`` on all 1,781 records, and the scoring rate is the
README's 72.2 % (7,000 of 9,702 points).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MULTI_CHOICE = "multi_choice"
PARTIAL_FULL, PARTIAL_SOME = 6.0, 3.0
"""The physics points of ``obj_score_eval``: exact letters, or only right letters but not all of them."""
NO_ANSWER = "Z"
"""What ``check_length_equal`` puts in place of an answer list of the wrong length: a letter never right."""

_ANSWER_MARK = re.compile(r"【答案】\s*[:：]*\s*[A-Z]")


def release_extract(output: str, release_type: str, questions: int) -> list[str]:
    """The answer ``extract_choice_answer`` reads from ``output`` for a record of ``release_type`` with ``questions``
    questions: one string per question (``["B"]``, ``["BD"]`` for physics, ``["A", "C", ...]``), ``[]`` if none."""
    if release_type == "single_choice":
        found = re.findall(r"[A-D]", output[::-1])
        return found[:1]
    if release_type == "multi_question_choice":
        marked = _ANSWER_MARK.findall(output)
        if len(marked) == questions:
            return [re.findall(r"[A-Z]", mark)[0] for mark in marked]
        return re.findall(r"[A-Z]", output)[:questions]
    if release_type == MULTI_CHOICE:
        content = re.sub(r"\s+", "", output)
        start = content.find("【答案】")
        tail = content[start:] if start > 0 else content[-10:]
        letters = "".join(re.findall(r"[A-D]", tail))
        return [letters] if letters else []
    if release_type == "five_out_of_seven":
        return re.findall(r"[A-G]", output)[:5]
    raise ValueError(f"unknown GAOKAO-Bench question type {release_type!r}")


@dataclass(frozen=True)
class Points:
    """One record as ``obj_score_eval`` counts it."""

    earned: float
    possible: float
    questions: int
    """Its questions: one per gold letter (a physics record is one)."""
    right: int
    """Its questions answered exactly right."""


def release_points(answer: Sequence[str], gold: Sequence[str], score: float, partial_credit: bool) -> Points:
    """The points ``obj_score_eval`` gives ``answer`` (one string per question) against ``gold``, each question
    worth ``score``; ``partial_credit``: the physics rule (6, 3 or 0)."""
    given = list(answer) if len(answer) == len(gold) else [NO_ANSWER] * len(gold)
    earned = 0.0
    for mine, right in zip(given, gold, strict=True):
        if mine == right:
            earned += PARTIAL_FULL if partial_credit else score
        elif partial_credit and all(letter in right for letter in mine):
            earned += PARTIAL_SOME
    return Points(earned, len(gold) * score, len(gold), sum(m == r for m, r in zip(given, gold, strict=True)))
