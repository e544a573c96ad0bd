"""ROSCOE-style step scores for Chinese and English reasoning chains, batched over whole runs.

>>> from reasoning_metrics import Chain, score_chains
>>> scores = score_chains([Chain("q1", source, hypothesis, reference)])  # doctest: +SKIP

Pure formulas are in :mod:`reasoning_metrics.functional`, the metric table in
:mod:`reasoning_metrics.registry`, model adapters in :mod:`reasoning_metrics.models`.
Importing this package does not import torch.
"""

__k12eval__ = True  # this folder is k12eval's own, not a PyPI namesake (k12eval._guard reads it)

from reasoning_metrics.records import Chain, ChainScores, StepDetail
from reasoning_metrics.registry import DEFAULT_METRICS, METRICS, Metric
from reasoning_metrics.scoring import iter_scores, score_chains
from reasoning_metrics.split import split_reference, split_steps
from reasoning_metrics.steps import StepThresholds

__all__ = [
    "DEFAULT_METRICS",
    "METRICS",
    "Chain",
    "ChainScores",
    "Metric",
    "StepDetail",
    "StepThresholds",
    "iter_scores",
    "score_chains",
    "split_reference",
    "split_steps",
]
