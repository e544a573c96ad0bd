"""The learned combination of every detector's findings into a per-step probability of being the first wrong step.

``step_features`` turns an assessment into features, ``fit_combiner`` (scikit-learn, only when fitting)
learns a :class:`Combiner`, ``load_combiner`` reads ``combiner.json`` or the shipped ``default``.
"""

from reasoning_metrics.combine.features import feature_names, graded_correct, step_features
from reasoning_metrics.combine.model import DEFAULT, NONE, Combiner, choose_combiner, load_combiner, parse_combiner

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
