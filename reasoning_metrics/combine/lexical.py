"""What a step says that the question did not: lexical step features for the learned combiner.

A model's first wrong step is rarely a restatement. Chinese chat models open with a plan
(``为了确定……，我们需要分析每个选项``) and copy each option before judging it; the first wrong step
is usually the first one that asserts something new. These features measure that without a model,
in any language: text is cut into units (one unit per Han character, one per run of latin letters or
digits), and a step's unit bigrams are compared with the question's, the earlier steps' and, when the
bank gives one, the teacher's analysis.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import pairwise

from reasoning_metrics.split import CJK_RANGE

_UNIT = re.compile(rf"[{CJK_RANGE}]|[a-z0-9]+(?:\.[0-9]+)?")
_PLAN = re.compile(
    r"我们需要|我们可以|让我们|为了(?:确定|解决|找到|回答|求)|^要(?:确定|解决|找到|回答|求)|分析每个选项|一步步|逐步|以下是"
    r"|let'?s|we need to|to (?:find|solve|determine|answer)|step by step",
    re.IGNORECASE,
)
"""Openings that announce work rather than do it (a step with a digit in it is doing work)."""
_DIGIT = re.compile(r"\d")
CLAIM_NEW_SHARE = 0.5
CLAIM_NEW_MIN = 3
"""A step is a claim when at least half of its bigrams, and at least three, appear neither in the
question nor in an earlier step, and it is not a plan. Fixed before any measurement, not tuned."""

LEXICAL_FEATURES = (
    "text.from_source",
    "text.new",
    "text.log_new",
    "text.claim",
    "text.first_claim",
    "text.claims_before",
    "text.plan",
)
REFERENCE_FEATURES = ("ref.known", "ref.support", "ref.share")
"""Against the teacher's analysis: whether one is given, the share of the step's new bigrams found in
it, and the share of all its bigrams found in it (0 without an analysis)."""


def bigrams(text: str) -> set[tuple[str, ...]]:
    """The text's unit bigrams (a one-unit text gives its unit)."""
    units = _UNIT.findall(text.lower())
    return set(pairwise(units)) if len(units) > 1 else {(u,) for u in units}


def lexical_features(source: str, steps: Sequence[str], analysis: str | None = None) -> list[dict[str, float]]:
    """Per step: :data:`LEXICAL_FEATURES` and :data:`REFERENCE_FEATURES` (see the module doc)."""
    question = bigrams(source)
    reference = bigrams(analysis) if analysis and analysis.strip() else None
    seen: set[tuple[str, ...]] = set()
    claims = 0
    rows = []
    for step in steps:
        mine = bigrams(step)
        n = len(mine) or 1
        new = mine - question - seen
        plan = bool(_PLAN.search(step)) and not _DIGIT.search(step)
        claim = len(new) / n >= CLAIM_NEW_SHARE and len(new) >= CLAIM_NEW_MIN and not plan
        rows.append(
            {
                "text.from_source": len(mine & question) / n,
                "text.new": len(new) / n,
                "text.log_new": math.log1p(len(new)),
                "text.claim": float(claim),
                "text.first_claim": float(claim and claims == 0),
                "text.claims_before": math.log1p(claims),
                "text.plan": float(plan),
                "ref.known": float(reference is not None),
                "ref.support": len(new & reference) / len(new) if reference is not None and new else 0.0,
                "ref.share": len(mine & reference) / n if reference is not None else 0.0,
            }
        )
        claims += claim
        seen |= mine
    return rows
