"""Meta-evaluation statistics against values worked out by hand on tiny inputs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reasoning_metrics.metaeval.detection_stats import auroc, bootstrap_ci, processbench_scores, somers_d
from reasoning_metrics.metaeval.thresholds import (
    cross_validated_predictions,
    first_at_or_above,
    fit_threshold,
    folds_of,
)


def test_auroc_counts_ties_as_half() -> None:
    # positives 0.8, 0.5, 0.5 vs negatives 0.5, 0.2: pairs won 1,1 | .5,1 | .5,1 -> 5 of 6
    assert auroc([0.8, 0.5, 0.5, 0.5, 0.2], [True, True, True, False, False]) == pytest.approx(5 / 6)


def test_auroc_extremes_and_undefined() -> None:
    assert auroc([3, 2, 1], [True, False, False]) == 1.0
    assert auroc([1, 2, 3], [True, False, False]) == 0.0
    assert auroc([1, 1, 1, 1], [True, False, True, False]) == 0.5
    assert auroc([1, 2], [True, True]) is None


def test_somers_d_is_concordant_minus_discordant_over_mixed_pairs() -> None:
    # same data: 4 concordant, 0 discordant, 2 tied of 6 mixed pairs -> (4 - 0) / 6
    assert somers_d([0.8, 0.5, 0.5, 0.5, 0.2], [True, True, True, False, False]) == pytest.approx(4 / 6)
    # 1 concordant (0.9 > 0.1), 1 discordant (0.3 < 0.6), 2 more: 0.9 > 0.6 c, 0.3 > 0.1 c -> (3 - 1) / 4
    assert somers_d([0.9, 0.3, 0.6, 0.1], [True, True, False, False]) == pytest.approx(0.5)


def test_processbench_f1_by_hand() -> None:
    # erroneous: targets 2, 0, 1 predicted 2, 1, -1 -> 1/3; correct: -1, -1 predicted -1, 0 -> 1/2
    scores = processbench_scores([2, 1, -1, 0, -1], [2, 0, -1, -1, 1])
    assert (scores.acc_error, scores.acc_correct) == (pytest.approx(1 / 3), 0.5)
    assert scores.f1 == pytest.approx(2 * (1 / 3) * 0.5 / (1 / 3 + 0.5))  # 0.4
    assert (scores.n_error, scores.n_correct) == (3, 2)


def test_processbench_leaves_out_unknown_targets_and_handles_zero() -> None:
    scores = processbench_scores([0, 1, 2], [None, 0, -1])
    assert (scores.acc_error, scores.acc_correct, scores.f1) == (0.0, 0.0, 0.0)


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    labels = [True] * 30 + [False] * 30
    scores = [i % 7 + (3 if y else 0) for i, y in enumerate(labels)]

    def stat(idx: np.ndarray) -> float | None:
        return auroc([scores[i] for i in idx], [labels[i] for i in idx])

    first = bootstrap_ci(stat, 60, n_boot=300, seed=7)
    assert first == bootstrap_ci(stat, 60, n_boot=300, seed=7)
    assert first != bootstrap_ci(stat, 60, n_boot=300, seed=8)
    assert first is not None and first[0] <= auroc(scores, labels) <= first[1]  # type: ignore[operator]


def test_first_at_or_above_and_threshold_fit() -> None:
    assert first_at_or_above([0.1, None, 0.7, 0.9], 0.5) == 2
    assert first_at_or_above([0.1, 0.2], 0.5) == -1
    # t in (0.3, 0.8] predicts [1, -1, 0] exactly (F1 1); 0.9 misses the last; <= 0.3 flags the correct one
    steps = [[0.1, 0.9], [0.2, 0.3], [0.8, 0.1]]
    threshold = fit_threshold(steps, [1, -1, 0])
    assert 0.3 < threshold <= 0.8 + 1e-9
    assert [first_at_or_above(s, threshold) for s in steps] == [1, -1, 0]


def test_folds_are_stratified_and_seeded() -> None:
    targets = [-1] * 10 + [1] * 10
    folds = folds_of(targets, 5, seed=3)
    assert folds == folds_of(targets, 5, seed=3)
    for f in range(5):
        assert sum(1 for t, g in zip(targets, folds, strict=True) if g == f and t == -1) == 2


def test_cross_validation_never_fits_on_the_fold_it_predicts() -> None:
    # Each fold's solutions carry a score pattern that only its own labels would reward:
    # a fitted threshold that had seen the test fold would predict it perfectly.
    steps, targets = [], []
    for i in range(20):
        wrong_here = i % 2 == 0
        steps.append([0.5 + i / 100, 0.0])
        targets.append(0 if wrong_here else -1)
    predictions, thresholds = cross_validated_predictions(steps, targets, k=5, seed=0)
    assert len(thresholds) == 5
    in_sample = processbench_scores([first_at_or_above(s, fit_threshold(steps, targets)) for s in steps], targets)
    out_of_fold = processbench_scores(predictions, targets)
    assert out_of_fold.f1 is not None and in_sample.f1 is not None and out_of_fold.f1 <= in_sample.f1


@given(
    st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=2, max_size=40).filter(
        lambda pairs: any(y for _, y in pairs) and not all(y for _, y in pairs)
    )
)
def test_auroc_equals_the_pairwise_count(pairs: list[tuple[int, bool]]) -> None:
    pos = [s for s, y in pairs if y]
    neg = [s for s, y in pairs if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    assert auroc([s for s, _ in pairs], [y for _, y in pairs]) == pytest.approx(wins / (len(pos) * len(neg)))
