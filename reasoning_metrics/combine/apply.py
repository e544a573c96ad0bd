"""A fitted combiner on one assessed solution: what ``k12eval score --combiner`` adds to a record."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from kg.records import detect_language
from reasoning_metrics.combine.features import step_features
from reasoning_metrics.combine.model import Combiner
from reasoning_metrics.combine.verdict import CombinedVerdict as CombinedVerdict
from reasoning_metrics.records import ChainScores
from reasoning_metrics.verify.flags import SolutionAssessment
from reasoning_metrics.verify.rules.arithmetic import StepCheck


def fingerprint(name: str, combiner: Combiner) -> str:
    """What a score header records of the combiner: its name and a hash of its weights (resumes must match)."""
    digest = hashlib.sha256(combiner.to_json().encode("utf-8")).hexdigest()[:12]
    return f"{name} (sha256 {digest})"


_FINGERPRINT = re.compile(r"^(?P<name>.*) \(sha256 (?P<digest>[0-9a-f]+)\)$", re.S)


def fingerprint_name(recorded: str) -> str | None:
    """The combiner's name in a :func:`fingerprint` (``default`` or a path), ``None`` when ``recorded`` is not one."""
    match = _FINGERPRINT.match(recorded)
    return match.group("name") if match else None


def combine_one(
    combiner: Combiner,
    steps: Sequence[str],
    assessment: SolutionAssessment,
    roscoe: ChainScores | None = None,
    graded: bool | None = None,
    source: str = "",
    analysis: str | None = None,
    *,
    checks: Sequence[StepCheck],
) -> CombinedVerdict | None:
    """The verdict of the combiner for the chain's language, or ``None`` when the detectors did not check the solution or the ROSCOE features it
    needs are missing (no encoder ran on this chain). ``checks``: the arithmetic checks the aggregate read
    (:func:`~reasoning_metrics.verify.aggregate_rule.checks_of`), not computed a second time."""
    if assessment.status != "checked" or (combiner.uses_roscoe and roscoe is None):
        return None
    combiner = combiner.for_language(detect_language(" ".join([source, *steps])))
    rows = step_features(steps, assessment, checks, roscoe, graded, source, analysis)
    p = combiner.step_probabilities(rows)
    return CombinedVerdict(
        step_probabilities=[round(v, 6) for v in p],
        first_suspect=combiner.first_suspect(p, graded is False),
        score=max(p, default=0.0),
        threshold=combiner.threshold,
        locate=combiner.locate,
    )
