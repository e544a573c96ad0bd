"""The learned combiner's verdict as a score record carries it: a record type only, so that reading a score
file does not load the combiner's features and the detectors behind them."""

from __future__ import annotations

from pydantic import BaseModel, Field


class CombinedVerdict(BaseModel):
    """The learned combiner's verdict on one solution (docs/detectors.md, "The learned combiner")."""

    step_probabilities: list[float]
    """Per step: P(this step is the first wrong one | no earlier step was)."""
    first_suspect: int = Field(ge=-1)
    """The most likely first error when the answer was graded wrong, else the earliest step at or above
    ``threshold``, else -1 (:func:`~reasoning_metrics.combine.model.first_suspect`)."""
    score: float
    """The largest step probability."""
    threshold: float
