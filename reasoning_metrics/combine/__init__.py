"""The learned combination of every detector's findings into a per-step probability of being the first wrong step.

``step_features`` turns an assessment into features, ``fit_combiner`` (scikit-learn, only when fitting)
learns a :class:`Combiner`, ``load_combiner`` reads ``combiner.json`` or the shipped ``default``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "feature_names": "reasoning_metrics.combine.features",
    "graded_correct": "reasoning_metrics.combine.features",
    "step_features": "reasoning_metrics.combine.features",
    "DEFAULT": "reasoning_metrics.combine.model",
    "NONE": "reasoning_metrics.combine.model",
    "Combiner": "reasoning_metrics.combine.model",
    "choose_combiner": "reasoning_metrics.combine.model",
    "load_combiner": "reasoning_metrics.combine.model",
    "parse_combiner": "reasoning_metrics.combine.model",
}
"""Public name -> the module that defines it, imported on first use (reading a score file does not load the features and the detectors)."""

__all__ = [
    "DEFAULT",
    "NONE",
    "Combiner",
    "choose_combiner",
    "feature_names",
    "graded_correct",
    "load_combiner",
    "parse_combiner",
    "step_features",
]

if TYPE_CHECKING:
    from reasoning_metrics.combine.features import feature_names, graded_correct, step_features
    from reasoning_metrics.combine.model import DEFAULT, NONE, Combiner, choose_combiner, load_combiner, parse_combiner


def __getattr__(name: str) -> Any:
    """The public names, each imported from its module when first asked for (PEP 562)."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
