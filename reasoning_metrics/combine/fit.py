"""Fit a :class:`~.model.Combiner` with scikit-learn: L2-regularised logistic regression on the step
features, its strength and the step threshold chosen by cross-validation grouped by question.

Training rows: every step of a correct solution (label 0); the steps of a wrong solution up to and
including its first wrong step (label 1 there, 0 before). Steps after the first error are left out
(the first-suspect rule never needs to tell them apart), as are wrong solutions whose first error is
not known. The threshold maximises ProcessBench F1 over the out-of-fold probabilities (exact first
step on wrong solutions where no correct solution is in the training data), each solution's first
suspect taken as :func:`~.model.first_suspect` takes it (a graded-wrong solution's does not depend on
the threshold). With it the fit chooses ``locate``, the step a solution called wrong by the threshold
gets (the earliest step over it, or the likeliest first error), by the same objective.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kg.errors import InputError
from reasoning_metrics.combine.features import graded_wrong
from reasoning_metrics.combine.model import LOCATE, Combiner, Locate, first_suspect

C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
"""Inverse L2 strengths tried."""


@dataclass
class TrainingSet:
    """One labelled set's step features, ready to fit on."""

    name: str
    targets: list[int | None]
    """Per solution: first wrong step, -1 correct, ``None`` wrong at an unknown step."""
    groups: list[str]
    """Per solution: the split key (question), so one question's solutions stay in one fold."""
    rows: list[list[dict[str, float]]]
    """Per solution, per step: feature -> value (:func:`~.features.step_features`)."""
    info: dict[str, Any] = field(default_factory=dict)
    """What ``combiner.json`` records about it (format, paths, half)."""


def _sklearn() -> Any:
    try:
        import sklearn.linear_model
        import sklearn.model_selection
        import sklearn.pipeline
        import sklearn.preprocessing
    except ImportError:
        raise InputError("fitting a combiner needs scikit-learn: pip install 'k12eval[fit]'") from None
    return sklearn


def _matrix(
    sets: Sequence[TrainingSet], features: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, int, int]]]:
    """Step matrix, labels, group ids, and per training row its (set, solution, step)."""
    xs, ys, gs, where = [], [], [], []
    group_id: dict[tuple[str, str], int] = {}
    for k, s in enumerate(sets):
        for j, (target, group, rows) in enumerate(zip(s.targets, s.groups, s.rows, strict=True)):
            if target is None:
                continue
            last = len(rows) - 1 if target < 0 else target
            g = group_id.setdefault((s.name, group), len(group_id))
            for i in range(last + 1):
                xs.append([rows[i].get(f, 0.0) for f in features])
                ys.append(1 if i == target else 0)
                gs.append(g)
                where.append((k, j, i))
    return np.asarray(xs, dtype=float), np.asarray(ys), np.asarray(gs), where


def choose_threshold(
    probabilities: Sequence[Sequence[float]],
    targets: Sequence[int],
    min_correct: float = 0.0,
    wrong: Sequence[bool] | None = None,
    locate: str = "earliest",
) -> tuple[float, dict[str, float | None]]:
    """The step threshold with the best ProcessBench F1 (best exact first step without correct solutions),
    among those that call at least ``min_correct`` of the correct solutions correct. ``wrong`` says per
    solution whether its final answer was graded wrong; ``locate`` which step a solution called wrong by the
    threshold gets (:func:`~.model.first_suspect`)."""
    from reasoning_metrics.combine.scores import processbench

    graded = list(wrong) if wrong is not None else [False] * len(probabilities)
    pooled = sorted({round(p, 6) for ps in probabilities for p in ps})
    candidates = pooled if len(pooled) <= 400 else list(np.quantile(pooled, np.linspace(0, 1, 401)))
    best: tuple[float, float, dict[str, float | None]] = (-1.0, 1.0, {})
    for t in [*candidates, 1.0 + 1e-9]:
        predictions = [first_suspect(ps, t, w, locate) for ps, w in zip(probabilities, graded, strict=True)]
        scores = processbench(predictions, targets)
        if scores["acc_correct"] is not None and scores["acc_correct"] < min_correct:
            continue
        objective = _objective(scores)
        if objective > best[0]:
            best = (objective, float(min(t, 1.0)), scores)
    return best[1], best[2]


def choose_decoding(
    probabilities: Sequence[Sequence[float]],
    targets: Sequence[int],
    min_correct: float = 0.0,
    wrong: Sequence[bool] | None = None,
) -> tuple[Locate, float, dict[str, float | None]]:
    """``locate`` and threshold with the best objective of :func:`choose_threshold` (``earliest`` on a tie)."""
    best: tuple[Locate, float, dict[str, float | None]] | None = None
    for locate in LOCATE:
        threshold, scores = choose_threshold(probabilities, targets, min_correct, wrong, locate)
        if best is None or _objective(scores) > _objective(best[2]):
            best = (locate, threshold, scores)
    assert best is not None
    return best


def _objective(scores: dict[str, float | None]) -> float:
    """ProcessBench F1, or exact first step where there is no correct solution to count."""
    f1 = scores.get("f1")
    return f1 if f1 is not None else scores.get("acc_error") or 0.0


def fit_combiner(
    sets: Sequence[TrainingSet],
    features: list[str],
    *,
    folds: int = 5,
    seed: int = 0,
    package_version: str = "",
    min_correct: float = 0.0,
) -> Combiner:
    """Fit the weights (C by grouped CV log-loss) and the threshold (on out-of-fold probabilities; the best
    F1 among thresholds calling at least ``min_correct`` of the correct training solutions correct)."""
    sk = _sklearn()
    x, y, groups, where = _matrix(sets, features)
    if len(y) == 0 or y.sum() == 0:
        raise InputError("no wrong solution with a known first wrong step in the training data: nothing to fit")
    if len(set(y)) < 2:
        raise InputError("the training data has no step before a first error and no correct solution: nothing to fit")
    n_groups = len(set(groups.tolist()))
    k = max(2, min(folds, n_groups))
    splitter = sk.model_selection.GroupKFold(n_splits=k, shuffle=True, random_state=seed)
    splits = list(splitter.split(x, y, groups))

    def model(c: float) -> Any:
        return sk.pipeline.make_pipeline(
            sk.preprocessing.StandardScaler(), sk.linear_model.LogisticRegression(C=c, max_iter=2000)
        )

    best: tuple[float, float, np.ndarray] | None = None
    for c in C_GRID:
        oof = np.zeros(len(y))
        for train, test in splits:
            if len(set(y[train])) < 2:
                oof[test] = y[train].mean()
                continue
            oof[test] = model(c).fit(x[train], y[train]).predict_proba(x[test])[:, 1]
        clipped = np.clip(oof, 1e-6, 1 - 1e-6)
        loss = float(-np.mean(y * np.log(clipped) + (1 - y) * np.log(1 - clipped)))
        if best is None or loss < best[0]:
            best = (loss, c, oof)
    assert best is not None
    loss, c, _ = best
    # Out-of-fold probabilities of every step of every solution (steps after the first error included),
    # so the threshold is chosen on predictions as the first-suspect rule will make them.
    probabilities = _out_of_fold_all(sets, features, x, y, groups, splits, model(c), where)
    targets = [t for s in sets for t in s.targets if t is not None]
    wrong = [graded_wrong(r) for s in sets for t, r in zip(s.targets, s.rows, strict=True) if t is not None]
    locate, threshold, scores = choose_decoding(probabilities, targets, min_correct, wrong)
    fitted = model(c).fit(x, y)
    scaler, logistic = fitted[0], fitted[1]
    coef = logistic.coef_[0] / scaler.scale_
    intercept = float(logistic.intercept_[0] - np.sum(coef * scaler.mean_))
    return Combiner(
        features=list(features),
        coefficients=[float(v) for v in coef],
        intercept=intercept,
        threshold=threshold,
        locate=locate,
        C=c,
        package_version=package_version,
        training=[
            {
                **s.info,
                "name": s.name,
                "solutions": len(s.targets),
                "with_error": sum(t is None or t >= 0 for t in s.targets),
                "located": sum(t is not None and t >= 0 for t in s.targets),
                "training_steps": sum(1 for w in where if w[0] == k),
            }
            for k, s in enumerate(sets)
        ],
        cv={
            "folds": k,
            "grouped_by": "question",
            "min_correct": min_correct,
            "step_log_loss": round(loss, 5),
            **_rounded(scores),
        },
    )


def _out_of_fold_all(
    sets: Sequence[TrainingSet],
    features: list[str],
    x: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    splits: list[tuple[np.ndarray, np.ndarray]],
    estimator: Any,
    where: list[tuple[int, int, int]],
) -> list[list[float]]:
    """Per labelled solution (targets not ``None``), the out-of-fold probability of each of its steps."""
    from sklearn.base import clone

    fold_of_group: dict[int, int] = {}
    models = []
    for f, (train, test) in enumerate(splits):
        models.append(clone(estimator).fit(x[train], y[train]) if len(set(y[train])) > 1 else None)
        for g in set(groups[test].tolist()):
            fold_of_group[g] = f
    group_of = {(k, j): groups[n] for n, (k, j, _) in enumerate(where)}
    out = []
    for k, s in enumerate(sets):
        for j, (target, rows) in enumerate(zip(s.targets, s.rows, strict=True)):
            if target is None:
                continue
            m = models[fold_of_group[group_of[(k, j)]]]
            mat = np.asarray([[r.get(f, 0.0) for f in features] for r in rows], dtype=float)
            out.append(list(m.predict_proba(mat)[:, 1]) if m is not None else [float(y.mean())] * len(rows))
    return out


def _rounded(scores: dict[str, float | None]) -> dict[str, float | None]:
    return {k: None if v is None else round(v, 4) for k, v in scores.items()}
