"""The learned combiner's verdict as a score record carries it: a record type only, so that reading a score
file does not load the combiner's features and the detectors behind them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class CombinedVerdict(BaseModel):
    """The learned combiner's verdict on one solution (docs/detectors.md, "The learned combiner")."""

    step_probabilities: list[float]
    """Per step: P(this step is the first wrong one | no earlier step was)."""
    first_suspect: int = Field(ge=-1)
    """The most likely first error when the answer was graded wrong; else -1 when no step reaches
    ``threshold``, else the step ``locate`` names (:func:`~reasoning_metrics.combine.model.first_suspect`)."""
    score: float
    """The largest step probability."""
    threshold: float
    locate: Literal["earliest", "likeliest"] = "earliest"
    """Which step an answer not graded wrong with a step at or above ``threshold`` gets: the earliest such step,
    or the likeliest first error (the combiner's ``locate``; records written before it: ``earliest``)."""
