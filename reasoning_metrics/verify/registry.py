"""The wrong-step detectors by name: one explicit table, nothing registers itself.

Adding a detector is one module in :mod:`.detectors` (a subclass of :class:`~.detector.Detector`, whose
members say what it reads, raises and is called) and one line here. The order is the order in which the aggregate
collects their flags (step flags, then solution flags), so it is part of the rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from reasoning_metrics.verify.detector import Detector
from reasoning_metrics.verify.detectors.arithmetic import Arithmetic
from reasoning_metrics.verify.detectors.contradiction import Contradiction
from reasoning_metrics.verify.detectors.doubt import Doubt
from reasoning_metrics.verify.detectors.equations import Equations
from reasoning_metrics.verify.detectors.facts import Facts
from reasoning_metrics.verify.detectors.final_answer import FinalAnswer
from reasoning_metrics.verify.detectors.judge import Judge
from reasoning_metrics.verify.detectors.not_whole import NotWhole
from reasoning_metrics.verify.detectors.option_verdicts import OptionVerdicts
from reasoning_metrics.verify.detectors.prm import PRM
from reasoning_metrics.verify.detectors.reference import AgainstReference
from reasoning_metrics.verify.detectors.repetition import Repetition
from reasoning_metrics.verify.detectors.rollouts import Rollouts
from reasoning_metrics.verify.detectors.roscoe import Roscoe
from reasoning_metrics.verify.detectors.unsupported_numbers import UnsupportedNumbers
from reasoning_metrics.verify.detectors.unused_given import UnusedGiven

_ALL: tuple[Detector, ...] = (
    Arithmetic(),
    Equations(),
    Facts(),
    AgainstReference(),
    OptionVerdicts(),
    UnsupportedNumbers(),
    Doubt(),
    Repetition(),
    Contradiction(),
    Judge(),
    PRM(),
    Rollouts(),
    UnusedGiven(),
    FinalAnswer(),
    NotWhole(),
    Roscoe(),
)
DETECTORS: dict[str, Detector] = {detector.name: detector for detector in _ALL}
"""Detector name -> the detector."""

RENAMED = {
    "quantities": ("unsupported_numbers", "unused_given"),
    "completeness": ("unused_given", "final_answer"),
}
"""Names that score files written before the registry used, and the detectors they stood for."""
UNNAMED = ("repetition", "not_whole")
"""Detectors that ran before the registry without being named in a score file."""


def current_names(names: Sequence[str]) -> list[str]:
    """Detector names as an older file wrote them, in today's names and order (others are kept as given).

    A list with an old name (:data:`RENAMED`) was written when :data:`UNNAMED` ran too, unnamed.
    """
    if not any(name in RENAMED for name in names):
        return list(names)
    known = {new for name in names for new in RENAMED.get(name, (name,))} | set(UNNAMED)
    unknown = [name for name in names if name not in RENAMED and name not in DETECTORS]
    return [name for name in DETECTORS if name in known] + unknown
