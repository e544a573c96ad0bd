"""Score every detector against the labels: solution-level AUROC and Somers' D, ProcessBench F1,
step-level AUROC, seeded bootstrap intervals, and the headline comparison with ROSCOE."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.detection_stats import auroc, bootstrap_ci, processbench_scores
from reasoning_metrics.metaeval.detectors import DetectorResult
from reasoning_metrics.metaeval.thresholds import best_acc_error_at, cross_validated_predictions, folds_of

REPORT_VERSION = 1
HEADLINE = "aggregate"
"""The k12eval detector named in advance for the comparison with the best ROSCOE score."""

Interval = tuple[float, float] | None


@dataclass
class DetectorReport:
    """How well one detector finds wrong solutions and wrong steps."""

    name: str
    family: str
    orientation: str
    rule: str
    """``native`` (the detector's own first-step prediction) or ``cv-threshold`` (see thresholds.py)."""
    auroc: float | None = None
    auroc_ci: Interval = None
    somers_d: float | None = None
    somers_d_ci: Interval = None
    acc_error: float | None = None
    acc_correct: float | None = None
    error_counts: tuple[int, int] = (0, 0)
    """``acc_error`` as (first wrong steps found exactly, solutions with a known first wrong step)."""
    correct_counts: tuple[int, int] = (0, 0)
    """``acc_correct`` as (correct solutions predicted to have no error, correct solutions)."""
    f1: float | None = None
    f1_ci: Interval = None
    step_auroc: float | None = None
    step_auroc_ci: Interval = None
    labelled_steps: int = 0
    unavailable: str | None = None
    not_checked: int = 0
    """Solutions the detector could not check (an error, over the time budget): no score, no prediction."""
    not_checked_example: str | None = None
    """Why the first of them was not checked."""


@dataclass
class Comparison:
    """The headline detector against the best ROSCOE score (picked on this data, which favours ROSCOE)."""

    headline: str
    best_roscoe: str | None
    auroc_gain: float | None = None
    auroc_gain_ci: Interval = None
    """Paired bootstrap interval of the AUROC difference."""
    exact_step_ratio: float | None = None
    """Headline's exact-first-step accuracy on erroneous solutions over the best ROSCOE score's."""
    acc_error_headline: float | None = None
    acc_error_best_roscoe: float | None = None
    best_roscoe_by_acc_error: str | None = None
    matched_acc_error_roscoe: float | None = None
    """Best exact-step accuracy of any ROSCOE score with a threshold chosen on this data (oracle) so
    that it raises no more false alarms on correct solutions than the headline detector."""
    matched_roscoe: str | None = None


@dataclass
class MetaEvalReport:
    """Everything ``k12eval meta-eval`` reports."""

    data: str
    format: str
    solutions: int
    with_error: int
    located: int
    """Erroneous solutions whose first wrong step is known."""
    seed: int
    n_boot: int
    folds: int
    """The cross-validation folds the threshold rules had: ``--folds``, or fewer when the solutions are fewer
    (the folds are stratified by error, so at most as many as the larger of the two strata)."""
    detectors: list[DetectorReport] = field(default_factory=list)
    comparison: Comparison | None = None
    version: int = REPORT_VERSION
    models: dict[str, str] = field(default_factory=dict)
    """The models the scores came from: ``encoder.zh``, ``encoder.en`` (by the solutions' language),
    ``nli``, ``judge``, ``prm`` (with its backend: ``prm:openai:NAME``); only those used."""
    half: str = "all"
    """The fixed half of the data the solutions are of (``--half``: ``dev``, ``confirm`` or ``all``)."""
    limit: int | None = None
    """``--limit``: only the first solutions of that half."""


def _solution_auroc(scores: Sequence[float | None], labels: Sequence[bool], idx: np.ndarray) -> float | None:
    pairs = [(scores[i], labels[i]) for i in idx if scores[i] is not None]
    return auroc([s for s, _ in pairs if s is not None], [y for s, y in pairs if s is not None])


def _step_pairs(result: DetectorResult, solutions: Sequence[LabelledSolution]) -> list[list[tuple[float, bool]]]:
    """Per solution, (step score, step is wrong) for every labelled, scored step."""
    out = []
    for scores, solution in zip(result.step_scores, solutions, strict=True):
        pairs = [
            (s, bool(y)) for s, y in zip(scores, solution.step_labels, strict=False) if s is not None and y is not None
        ]
        out.append(pairs)
    return out


def evaluate_detector(
    result: DetectorResult, solutions: Sequence[LabelledSolution], *, n_boot: int, seed: int, folds: int
) -> DetectorReport:
    """All statistics of one detector."""
    report = DetectorReport(
        result.name, result.family, result.orientation, "native" if result.native else "cv-threshold"
    )
    if result.unavailable:
        report.unavailable = result.unavailable
        return report
    report.not_checked = len(result.not_checked)
    report.not_checked_example = next(iter(result.not_checked.values()), None)
    labels = [s.has_error for s in solutions]
    everything = np.arange(len(solutions))
    scores = result.solution_scores
    report.auroc = _solution_auroc(scores, labels, everything)
    report.somers_d = None if report.auroc is None else 2 * report.auroc - 1
    report.auroc_ci = bootstrap_ci(
        lambda idx: _solution_auroc(scores, labels, idx), len(solutions), n_boot=n_boot, seed=seed
    )
    if report.auroc_ci:
        report.somers_d_ci = (2 * report.auroc_ci[0] - 1, 2 * report.auroc_ci[1] - 1)
    targets = [s.target for s in solutions]
    predictions: list[int | None]
    if result.native is not None:
        predictions = list(result.native)
    else:
        predictions = list(cross_validated_predictions(result.step_scores, targets, k=folds, seed=seed)[0])
    pb = processbench_scores(predictions, targets)
    report.acc_error, report.acc_correct, report.f1 = pb.acc_error, pb.acc_correct, pb.f1
    report.error_counts = (round((pb.acc_error or 0.0) * pb.n_error), pb.n_error)
    report.correct_counts = (round((pb.acc_correct or 0.0) * pb.n_correct), pb.n_correct)
    report.f1_ci = bootstrap_ci(
        lambda idx: processbench_scores([predictions[i] for i in idx], [targets[i] for i in idx]).f1,
        len(solutions),
        n_boot=n_boot,
        seed=seed,
    )
    steps = _step_pairs(result, solutions)
    report.labelled_steps = sum(len(p) for p in steps)

    def step_area(idx: np.ndarray) -> float | None:
        pooled = [pair for i in idx for pair in steps[i]]
        return auroc([s for s, _ in pooled], [y for _, y in pooled])

    report.step_auroc = step_area(everything)
    report.step_auroc_ci = bootstrap_ci(step_area, len(solutions), n_boot=n_boot, seed=seed)
    return report


def compare(
    results: Sequence[DetectorResult],
    reports: Sequence[DetectorReport],
    solutions: Sequence[LabelledSolution],
    *,
    n_boot: int,
    seed: int,
) -> Comparison | None:
    """The headline detector against the ROSCOE score with the best AUROC (and best exact-step accuracy)."""
    by_name = {r.name: r for r in reports}
    head = by_name.get(HEADLINE)
    roscoe = [r for r in reports if r.family == "roscoe" and r.auroc is not None]
    if head is None or head.auroc is None or not roscoe:
        return None
    best = max(roscoe, key=lambda r: r.auroc or 0.0)
    best_step = max(roscoe, key=lambda r: r.acc_error or 0.0)
    head_scores = next(r for r in results if r.name == HEADLINE).solution_scores
    base_scores = next(r for r in results if r.name == best.name).solution_scores
    labels = [s.has_error for s in solutions]

    def gain(idx: np.ndarray) -> float | None:
        a, b = _solution_auroc(head_scores, labels, idx), _solution_auroc(base_scores, labels, idx)
        return None if a is None or b is None else a - b

    ratio = None
    if head.acc_error is not None and best_step.acc_error:
        ratio = head.acc_error / best_step.acc_error
    targets = [s.target for s in solutions]
    matched: list[tuple[float, str]] = []
    if head.acc_correct is not None:
        for r in results:
            if r.family == "roscoe" and not r.unavailable:
                value = best_acc_error_at(r.step_scores, targets, head.acc_correct)
                if value is not None:
                    matched.append((value, r.name))
    best_matched = max(matched, default=(None, None))
    return Comparison(
        headline=HEADLINE,
        best_roscoe=best.name,
        auroc_gain=gain(np.arange(len(solutions))),
        auroc_gain_ci=bootstrap_ci(gain, len(solutions), n_boot=n_boot, seed=seed),
        exact_step_ratio=ratio,
        acc_error_headline=head.acc_error,
        acc_error_best_roscoe=best_step.acc_error,
        best_roscoe_by_acc_error=best_step.name,
        matched_acc_error_roscoe=best_matched[0],
        matched_roscoe=best_matched[1],
    )


def meta_evaluate(
    solutions: Sequence[LabelledSolution],
    results: Sequence[DetectorResult],
    *,
    data: str = "",
    fmt: str = "",
    n_boot: int = 1000,
    seed: int = 0,
    folds: int = 5,
    models: dict[str, str] | None = None,
) -> MetaEvalReport:
    """The full report for detector ``results`` on ``solutions``; ``models`` as :attr:`MetaEvalReport.models`."""
    reports = [evaluate_detector(r, solutions, n_boot=n_boot, seed=seed, folds=folds) for r in results]
    return MetaEvalReport(
        data=data,
        format=fmt,
        solutions=len(solutions),
        with_error=sum(s.has_error for s in solutions),
        located=sum(s.has_error and s.first_error is not None for s in solutions),
        seed=seed,
        n_boot=n_boot,
        folds=used_folds(solutions, folds),
        detectors=reports,
        comparison=compare(results, reports, solutions, n_boot=n_boot, seed=seed),
        models=dict(models or {}),
    )


def used_folds(solutions: Sequence[LabelledSolution], folds: int) -> int:
    """How many of ``folds`` cross-validation folds hold a solution, as :func:`thresholds.folds_of` deals them (by
    error and no error: only whether a solution has an error matters to how many)."""
    return len(set(folds_of([0 if s.has_error else -1 for s in solutions], folds, seed=0)))
