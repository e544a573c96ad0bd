"""The rule that turns step scores into a first-wrong-step prediction, fitted without seeing the test items.

A detector without its own prediction (every ROSCOE score, NLI contradiction, a
PRM) predicts the **first step whose suspicion reaches a threshold t**, or -1
when none does. ``t`` is chosen by K-fold cross-validation: the solutions are
split into K folds (seeded, stratified by error / no error); for each fold, t is
the candidate that maximises ProcessBench F1 on the other K-1 folds, and the
fold's predictions use that t. Every reported prediction is thus made by a
threshold fitted on other solutions. Candidates are the 0th..100th percentiles
of all step scores, plus +inf ("never flag").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reasoning_metrics.metaeval.detection_stats import processbench_scores


def first_at_or_above(step_scores: Sequence[float | None], threshold: float) -> int:
    """Index of the first step whose score reaches ``threshold`` (missing scores never do), or -1."""
    return next((i for i, s in enumerate(step_scores) if s is not None and s >= threshold), -1)


def _candidates(step_scores: Sequence[Sequence[float | None]]) -> list[float]:
    pooled = np.asarray([s for scores in step_scores for s in scores if s is not None], dtype=float)
    if pooled.size == 0:
        return [float("inf")]
    return sorted({*np.percentile(pooled, np.arange(101)).tolist(), float("inf")})


def fit_threshold(step_scores: Sequence[Sequence[float | None]], targets: Sequence[int | None]) -> float:
    """The candidate threshold with the best ProcessBench F1 on these solutions (ties: the highest)."""
    best, best_f1 = float("inf"), -1.0
    for threshold in reversed(_candidates(step_scores)):
        predictions = [first_at_or_above(s, threshold) for s in step_scores]
        f1 = processbench_scores(predictions, targets).f1
        if f1 is not None and f1 > best_f1:
            best, best_f1 = threshold, f1
    return best


def best_acc_error_at(
    step_scores: Sequence[Sequence[float | None]], targets: Sequence[int | None], min_acc_correct: float
) -> float | None:
    """Oracle: the best exact-first-step accuracy any threshold reaches while keeping ``acc_correct``
    at least ``min_acc_correct``, thresholds chosen on these very labels (an upper bound, used only to
    compare a baseline with a detector at the same false-alarm rate)."""
    values = sorted({s for scores in step_scores for s in scores if s is not None} | {float("inf")})
    best = None
    for threshold in values:
        scores = processbench_scores([first_at_or_above(s, threshold) for s in step_scores], targets)
        if scores.acc_correct is not None and scores.acc_correct >= min_acc_correct and scores.acc_error is not None:
            best = scores.acc_error if best is None else max(best, scores.acc_error)
    return best


def folds_of(targets: Sequence[int | None], k: int, seed: int) -> list[int]:
    """Fold number of each solution: seeded, stratified by error (target >= 0 or unknown) / no error."""
    rng = np.random.default_rng(seed)
    fold = [0] * len(targets)
    for group in (
        [i for i, t in enumerate(targets) if t == -1],
        [i for i, t in enumerate(targets) if t != -1],
    ):
        order = rng.permutation(len(group))
        for rank, position in enumerate(order):
            fold[group[position]] = rank % k
    return fold


def cross_validated_predictions(
    step_scores: Sequence[Sequence[float | None]], targets: Sequence[int | None], *, k: int = 5, seed: int = 0
) -> tuple[list[int], list[float]]:
    """Out-of-fold first-wrong-step predictions and the threshold fitted for each fold."""
    folds = folds_of(targets, k, seed)
    predictions = [-1] * len(targets)
    thresholds = []
    for f in range(k):
        train = [i for i in range(len(targets)) if folds[i] != f]
        test = [i for i in range(len(targets)) if folds[i] == f]
        if not test:
            continue
        threshold = fit_threshold([step_scores[i] for i in train], [targets[i] for i in train])
        thresholds.append(threshold)
        for i in test:
            predictions[i] = first_at_or_above(step_scores[i], threshold)
    return predictions, thresholds
