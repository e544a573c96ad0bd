"""CK12's error categories for a wrong answer: illogical answer, problem-solving error, gibberish output.

The CK12 paper sorts the answers models get wrong into three kinds (see ../shared/PAPERS.md):

==================  =============================================================================
``gibberish``       the output is no text a reader can follow: empty, a loop (stopped by the loop
                    guard, :mod:`runners.loop_guard`; or one line, or one
                    piece of 4-60 characters in a row, written :data:`LOOP_LINES` times or
                    more, or text that compresses below
                    :data:`LOOP_RATIO` of its size), or mostly characters that are no letters,
                    digits or Chinese (:data:`TEXT_SHARE`)
``illogical``       readable text that gives no answer of the kind asked (unparsed): the model
                    did not understand the question or the instruction (a refusal, the stem
                    restated, another question answered, alternatives offered)
``problem_solving`` an answer of the kind asked, and a wrong one
==================  =============================================================================

A right answer, a failed request and a question scored without text (``rank-options``,
``next-token``) have none. The thresholds were set from the definitions, not fitted; on the
labelled CK12 answers of data/ck12_errors they are checked in tests/runners/test_errortypes.py.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections import Counter
from typing import Literal

from runners.loop_guard import FINISH_LOOP

ErrorType = Literal["illogical", "problem_solving", "gibberish"]
ERROR_TYPES: tuple[ErrorType, ...] = ("illogical", "problem_solving", "gibberish")

LOOP_LINES = 5
"""A line of 4+ characters written this many times makes the output a loop."""
LOOP_RATIO = 0.15
"""An output of 200+ bytes that zlib compresses below this share of its size repeats itself."""
TEXT_SHARE = 0.3
"""Below this share of letters, digits and Chinese among its visible characters, an output is noise."""
_LOOP_MIN_BYTES = 200
_REPEATED = re.compile(r"(\S.{3,59}?)\1{" + str(LOOP_LINES - 1) + ",}", re.S)
_TAIL = 4000
"""Characters at the end searched for a piece repeated in a row (where a model stuck in a loop ends)."""


def is_gibberish(output: str | None) -> bool:
    """Whether ``output`` is no text a reader can follow (see the module docstring)."""
    if output is None or not output.strip():
        return True
    lines = Counter(line.strip() for line in output.splitlines() if len(line.strip()) >= 4)
    if lines and max(lines.values()) >= LOOP_LINES:
        return True
    if _REPEATED.search(output[-_TAIL:]):
        return True
    raw = output.encode("utf-8", "surrogatepass")
    if len(raw) >= _LOOP_MIN_BYTES and len(zlib.compress(raw, 9)) < LOOP_RATIO * len(raw):
        return True
    visible = [c for c in output if not c.isspace()]
    text = sum(1 for c in visible if unicodedata.category(c)[0] in ("L", "N"))
    return text < TEXT_SHARE * len(visible)


def error_type(
    output: str | None, parse_status: str, correct: bool | None, finish_reason: str | None = None
) -> ErrorType | None:
    """The CK12 category of a wrong generated answer; ``None`` when it is right, failed or not generated.

    An answer the loop guard stopped (``finish_reason`` ``loop``) is a loop, so gibberish, however few
    copies of its piece it got to write before it was stopped.
    """
    if correct or output is None or parse_status not in ("ok", "unparsed"):
        return None  # right, failed, or scored without text
    if finish_reason == FINISH_LOOP or is_gibberish(output):
        return "gibberish"
    return "illogical" if parse_status == "unparsed" else "problem_solving"
