"""``calibrate``: fit a combiner on labelled sets (one half of each), through the same detectors as
``k12eval score`` and ``meta-eval``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reasoning_metrics.combine.features import feature_names
from reasoning_metrics.combine.fit import fit_combiner
from reasoning_metrics.combine.model import Combiner
from reasoning_metrics.metaeval.combined import training_set
from reasoning_metrics.metaeval.halves import half_indices
from reasoning_metrics.metaeval.lodo import score_set
from reasoning_metrics.metaeval.sets import SetSpec, load_set
from reasoning_metrics.protocols import SentenceEncoder


def calibrate(
    specs: Sequence[SetSpec],
    *,
    half: str = "dev",
    encoder: SentenceEncoder | None = None,
    grade: bool = True,
    folds: int = 5,
    seed: int = 0,
    package_version: str = "",
    cache: Any = False,
    min_correct: float = 0.0,
) -> Combiner:
    """A combiner fitted on ``half`` (``dev``, ``confirm``, ``all``) of every set of ``specs``.

    With ``encoder`` the ROSCOE step scores are features too; ``grade`` adds the final answer's grade
    where the data gives it (``meta.graded_correct`` / ``final_answer_correct``); ``min_correct`` bounds the
    threshold (see :func:`~reasoning_metrics.combine.fit.fit_combiner`).
    """
    sets = []
    for spec in specs:
        scored = score_set(spec, load_set(spec), encoder, cache)
        idx = half_indices(scored.solutions, half)
        sets.append(
            training_set(
                spec.name,
                [scored.solutions[k] for k in idx],
                [scored.ctx.assessments[k] for k in idx],
                [scored.rows[k] for k in idx],
                {"format": spec.fmt, "paths": [str(p) for p in spec.paths], "half": half},
            )
        )
    features = feature_names(roscoe=encoder is not None, grade=grade)
    return fit_combiner(
        sets, features, folds=folds, seed=seed, package_version=package_version, min_correct=min_correct
    )
