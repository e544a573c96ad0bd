"""ROSCOE-style step scores for Chinese and English reasoning chains, batched over whole runs.

>>> from reasoning_metrics import Chain, score_chains
>>> scores = score_chains([Chain("q1", source, hypothesis, reference)])  # doctest: +SKIP

Pure formulas are in :mod:`reasoning_metrics.functional`, the metric table in
:mod:`reasoning_metrics.metric_table`, model adapters in :mod:`reasoning_metrics.models`.
Importing this package does not import torch.
"""

from __future__ import annotations

__k12eval__ = True  # this folder is k12eval's own, not a PyPI namesake (k12eval._guard reads it)

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Chain": "reasoning_metrics.records",
    "ChainScores": "reasoning_metrics.records",
    "StepDetail": "reasoning_metrics.records",
    "DEFAULT_METRICS": "reasoning_metrics.metric_table",
    "METRICS": "reasoning_metrics.metric_table",
    "Metric": "reasoning_metrics.metric_table",
    "iter_scores": "reasoning_metrics.scoring",
    "score_chains": "reasoning_metrics.scoring",
    "split_reference": "reasoning_metrics.split",
    "split_steps": "reasoning_metrics.split",
    "StepThresholds": "reasoning_metrics.step_detail",
}
"""Public name -> the module that defines it, imported on first use (reading records does not load the scoring pipeline)."""

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

if TYPE_CHECKING:
    from reasoning_metrics.metric_table import DEFAULT_METRICS, METRICS, Metric
    from reasoning_metrics.records import Chain, ChainScores, StepDetail
    from reasoning_metrics.scoring import iter_scores, score_chains
    from reasoning_metrics.split import split_reference, split_steps
    from reasoning_metrics.step_detail import StepThresholds


def __getattr__(name: str) -> Any:
    """The public names, each imported from its module when first asked for (PEP 562)."""
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
