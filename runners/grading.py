"""Correctness of an extracted answer, per question type.

==================  ==========================================================
single / multiple   exact: the same letter / the same set of letters
sorting             exact: the same letters in the same order
cloze               exact over all blanks; ``partial`` = share of blanks right
judgment            per statement; ``correct`` when all are right, ``partial`` =
                    share right (a statement without a verdict counts as wrong)
fill_in_blank       blank by blank with :func:`runners.fillin.blank_matches` (the
                    stem's unit words, :func:`runners.fillin.stem_units`, are units);
                    ``correct`` when every blank matches, ``partial`` = share
==================  ==========================================================

An unparsed output is wrong (``partial`` 0 where the type has one).

Where k12eval differs from CK12's released scorer, on purpose:

* Fill-in: the release counts a blank right when its text *occurs anywhere* in the
  response's first sentence, and for a single blank (no ``;`` in the answer) it
  iterates over the answer's *characters*: gold ``12`` is "found" in ``21`` or
  ``1+2``. k12eval compares the extracted blanks one by one after normalising
  them; :func:`runners.ck12_release.release_fill_correct` keeps the released rule for comparison.
* Judgment: the release finds verdicts with ``[FT]`` anywhere in the response and zips
  them with the gold, so statements the model did not answer are not counted at all;
  here verdicts are read per statement and a statement without one counts as wrong.
  :func:`runners.ck12_release.release_judgment` keeps the released rule (``report
  --judgment ck12-release``).
* Cloze: the release does not score it; here it is scored blank by blank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kg.records import Question, QuestionType
from runners.fillin import blank_matches, stem_units


@dataclass(frozen=True)
class Grade:
    """Whether an answer is right, and the share of its parts that are."""

    correct: bool
    partial: float | None = None
    """Share of statements / blanks right, for judgment, fill-in and cloze; else ``None``."""


_PARTIAL = (QuestionType.JUDGMENT, QuestionType.FILL, QuestionType.CLOZE)


def grade(question: Question, answer: Sequence[str] | Sequence[bool] | None) -> Grade:
    """Grade ``answer`` (in the gold answer's normal form, ``None`` when unparsed) against ``question``."""
    qtype = question.type
    gold = list(question.answer)
    if answer is None:
        return Grade(False, 0.0 if qtype in _PARTIAL else None)
    given = list(answer)
    if qtype is QuestionType.MULTIPLE:
        return Grade(sorted(set(map(str, given))) == sorted(map(str, gold)))
    if qtype in (QuestionType.SINGLE, QuestionType.SORTING):
        return Grade(given == gold)
    if qtype is QuestionType.FILL:
        units = stem_units(question.stem)  # "___ yuan": the stem's own unit words are units here
        hits = [i < len(given) and blank_matches(str(given[i]), str(g), units) for i, g in enumerate(gold)]
    else:
        hits = [i < len(given) and given[i] == g for i, g in enumerate(gold)]
    share = sum(hits) / len(gold)
    return Grade(all(hits) and len(given) == len(gold), share)
