"""Split a worked solution into the steps a teacher judges one at a time.

Used where the scorer left no steps (an unscored run, the teacher's analysis of
a question the scorer skipped). Lines are steps; a long line is cut after
sentence-final punctuation; pieces too short to judge join the step before.
"""

from __future__ import annotations

import re

from runners.extraction.markers import CONCLUDES

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])\s*|(?<=\.)\s+(?=[A-Z(（\d])")
_NUMBERED = re.compile(r"^\s*(?:\d{1,2}[.．、)]|[（(]\d{1,2}[)）]|[①-⑳])")
MIN_STEP = 6
"""Characters below which a piece joins the previous step (a lone "故选A。" still stands)."""
LONG_LINE = 80
"""Lines longer than this are cut into sentences."""


def split_steps(text: str | None) -> list[str]:
    """The steps of ``text``; an empty list for empty text."""
    if not text or not text.strip():
        return []
    steps: list[str] = []
    for line in re.split(r"\r?\n", text):
        line = line.strip()
        if not line:
            continue
        pieces = [p.strip() for p in _SENTENCE_END.split(line)] if len(line) > LONG_LINE else [line]
        for piece in filter(None, pieces):
            if steps and len(piece) < MIN_STEP and not _NUMBERED.match(piece) and not _is_conclusion(piece):
                steps[-1] = f"{steps[-1]}{piece}"
            else:
                steps.append(piece)
    return steps


def _is_conclusion(piece: str) -> bool:
    """A short piece that states the answer (an answer marker, 所以, 因此) stays a step of its own."""
    return bool(CONCLUDES.search(piece) or _THEREFORE.search(piece))


_THEREFORE = re.compile("所以|因此")
