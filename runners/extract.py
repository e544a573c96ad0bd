"""Answer extraction: a pure function from (question, model output) to the answer in the gold answer's form.

Model output is untrusted text. Extraction never guesses (CMMLU's released code
falls back to a random letter; k12eval reports ``unparsed`` instead), never
raises on any text, and says which rule read the answer and where, so a reader
can check it.

======================  ===============================  =========================
type                    answer                           rules (strongest first)
======================  ===============================  =========================
single_choice           ``["C"]``                        see :mod:`runners.extraction.choice`
multiple_choice         ``["B", "D"]``                   same, letters as a set
judgment                ``[True, False]``                :mod:`runners.extraction.judgment`
fill_in_blank           ``["50", "0.8"]``                :mod:`runners.extraction.fill`
sorting                 ``["C", "B", "A"]``              :mod:`runners.extraction.sequence`
cloze                   ``["B", "A", "D"]``              :mod:`runners.extraction.sequence`
======================  ===============================  =========================

Outputs of reasoning models are read after their closing ``</think>``; a base
model that writes on into the next few-shot example is cut at "例N:" / "题目：".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kg.records import Question, QuestionType
from runners.extraction.choice import extract_choice
from runners.extraction.fill import extract_fill
from runners.extraction.judgment import extract_judgment
from runners.extraction.sequence import extract_cloze, extract_sorting
from runners.extraction.text import Found, make_view


@dataclass(frozen=True)
class Extraction:
    """The answer read from one output, or why there is none."""

    answer: list[str] | list[bool] | None
    """In the gold answer's normal form (see :mod:`kg.records`); ``None`` when unparsed."""
    status: Literal["ok", "unparsed"]
    span: tuple[int, int] | None = None
    """Where in the output the answer was read (character offsets)."""
    evidence: str = ""
    """The output's text at ``span``."""
    rule: str = ""
    """The rule that read it, e.g. ``explicit``, ``leading``, ``lone-letter``, ``numbered``."""


UNPARSED = Extraction(answer=None, status="unparsed")


def extract(question: Question, text: str | None) -> Extraction:
    """The answer ``text`` gives to ``question``, with where it was read; ``unparsed`` if it gives none."""
    if not text or not text.strip():
        return UNPARSED
    view = make_view(text)
    found: Found | None
    qtype = question.type
    if qtype is QuestionType.SINGLE:
        found = extract_choice(view, question, multiple=False)
    elif qtype is QuestionType.MULTIPLE:
        found = extract_choice(view, question, multiple=True)
    elif qtype is QuestionType.JUDGMENT:
        found = extract_judgment(view, len(question.options) or len(question.answer), question.stem)
    elif qtype is QuestionType.FILL:
        found = extract_fill(view, len(question.answer))
    elif qtype is QuestionType.SORTING:
        found = extract_sorting(view, question)
    else:
        found = extract_cloze(view, question)
    if found is None or not found.answer:
        return UNPARSED
    start, end = view.start + found.start, view.start + found.end
    return Extraction(answer=found.answer, status="ok", span=(start, end), evidence=text[start:end], rule=found.rule)
