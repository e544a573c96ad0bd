"""Leave-one-dataset-out: fit the combiner on the development halves of the other sets, report on each
half of the one left out, beside the hand-weighted ``aggregate`` (and the best ROSCOE score when an
encoder runs). Nothing reported on a set was chosen on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kg.intervals import rate_text
from reasoning_metrics.combine.features import feature_names
from reasoning_metrics.combine.fit import fit_combiner
from reasoning_metrics.combine.model import Combiner
from reasoning_metrics.metaeval.combined import predict, set_features, training_set
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.detectors import DetectionContext, DetectorResult, combiner_result, run_detectors
from reasoning_metrics.metaeval.halves import half_indices
from reasoning_metrics.metaeval.harness import DetectorReport, evaluate_detector
from reasoning_metrics.metaeval.sets import SetSpec
from reasoning_metrics.protocols import SentenceEncoder
from reasoning_metrics.verify.rules.baseline import BASELINE_METRICS, solution_languages

Encoders = SentenceEncoder | Mapping[str, SentenceEncoder]
"""One sentence encoder, or one per language (``{"zh": ..., "en": ...}``), as a detection context takes it."""


@dataclass
class Scored:
    """One set with everything computed once: the detectors' results and the step features."""

    spec: SetSpec
    solutions: list[LabelledSolution]
    ctx: DetectionContext
    results: list[DetectorResult]
    rows: list[list[dict[str, float]]]
    encoder: dict[str, str] = field(default_factory=dict)
    """Language -> the encoder its ROSCOE scores came from (empty without one): a combiner's training entry."""


@dataclass
class LodoRow:
    """One detector on one half of one held-out set."""

    dataset: str
    half: str
    detector: str
    solutions: int
    with_error: int
    auroc: float | None
    acc_error: float | None
    acc_correct: float | None
    f1: float | None
    auroc_ci: tuple[float, float] | None = None
    f1_ci: tuple[float, float] | None = None
    error_counts: tuple[int, int] = (0, 0)
    """``acc_error`` as (found exactly, solutions with a known first wrong step)."""
    correct_counts: tuple[int, int] = (0, 0)
    """``acc_correct`` as (called correct, correct solutions)."""


@dataclass
class LodoReport:
    """The whole leave-one-dataset-out run."""

    rows: list[LodoRow] = field(default_factory=list)
    by: str | None = None
    """The meta field of the per-group rows (``--by kind``), if asked."""
    group_rows: list[LodoRow] = field(default_factory=list)
    """Per held-out set, half and value of ``meta[by]`` of the wrong solutions: each group with the
    set's correct solutions of that half (``detector`` is ``<group>: <detector>``)."""
    combiners: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Held-out set -> what each fitted combiner was trained on, its C and threshold."""


VARIANTS = {"combiner": True, "combiner (no grade)": False}
"""Combiner rows: name -> whether it reads the final answer's grade (when the data gives it)."""


def score_set(
    spec: SetSpec,
    solutions: list[LabelledSolution],
    encoder: Encoders | None,
    cache: Any = False,
    encoder_names: Mapping[str, str] | None = None,
) -> Scored:
    """Run ``aggregate`` (and the ROSCOE scores with an encoder) and compute the step features, once.

    ``encoder_names`` (language -> spec) names the encoder as the user gave it; else the adapter's ``name``.
    """
    ctx = DetectionContext(solutions, encoder=encoder, cache=cache)
    names = ["aggregate", *([f"roscoe.{m}" for m in BASELINE_METRICS] if encoder is not None else [])]
    results = run_detectors(ctx, names)
    rows = set_features(solutions, ctx.assessments, ctx.checks, ctx.roscoe if encoder is not None else None)
    return Scored(spec, solutions, ctx, results, rows, _encoder_names(solutions, encoder, encoder_names))


def _encoder_names(
    solutions: Sequence[LabelledSolution], encoder: Encoders | None, given: Mapping[str, str] | None
) -> dict[str, str]:
    if encoder is None:
        return {}
    if given is not None:
        return dict(given)
    languages = solution_languages(solutions) or ["en"]
    if isinstance(encoder, Mapping):
        return {lg: encoder[lg].name for lg in languages if lg in encoder}
    return {lg: encoder.name for lg in languages}


def _subset(result: DetectorResult, idx: Sequence[int]) -> DetectorResult:
    where = {k: n for n, k in enumerate(idx)}
    return DetectorResult(
        result.name,
        result.family,
        result.orientation,
        [result.solution_scores[k] for k in idx],
        [result.step_scores[k] for k in idx],
        None if result.native is None else [result.native[k] for k in idx],
        result.unavailable,
        {where[k]: v for k, v in result.not_checked.items() if k in where},
    )


def training_info(scored: Scored, half: str) -> dict[str, Any]:
    """What a combiner's ``training`` entry says of a set besides its counts: format, files, half and the
    encoder of each language's ROSCOE features (``None`` without), so a mix of sets stays readable."""
    return {
        "format": scored.spec.fmt,
        "paths": [str(p) for p in scored.spec.paths],
        "half": half,
        "encoder": dict(scored.encoder) or None,
    }


def fit_on_dev(
    train: Sequence[Scored],
    *,
    grade: bool,
    roscoe: bool,
    folds: int,
    seed: int,
    package_version: str = "",
    min_correct: float = 0.0,
) -> Combiner:
    """A combiner fitted on the development halves of ``train``."""
    features = feature_names(roscoe=roscoe, grade=grade)
    sets = []
    for s in train:
        idx = half_indices(s.solutions, "dev")
        sets.append(
            training_set(
                s.spec.name,
                [s.solutions[k] for k in idx],
                [s.ctx.assessments[k] for k in idx],
                [s.rows[k] for k in idx],
                training_info(s, "dev"),
            )
        )
    return fit_combiner(
        sets, features, folds=folds, seed=seed, package_version=package_version, min_correct=min_correct
    )


def leave_one_out(
    scored: Sequence[Scored],
    *,
    folds: int = 5,
    seed: int = 0,
    roscoe: bool = False,
    by: str | None = None,
    min_correct: float = 0.0,
    n_boot: int = 200,
) -> LodoReport:
    """For each set: fit on the others' development halves, report on its development and confirmation halves
    (and, with ``by``, on each group of its wrong solutions by ``meta[by]``, beside its correct ones); AUROC
    with a ``n_boot`` percentile-bootstrap interval, rates with their counts."""
    report = LodoReport(by=by)
    for k, held in enumerate(scored):
        others = [s for j, s in enumerate(scored) if j != k]
        results = list(held.results)
        fitted = {}
        for name, grade in VARIANTS.items():
            combiner = fit_on_dev(others, grade=grade, roscoe=roscoe, folds=folds, seed=seed, min_correct=min_correct)
            fitted[name] = {"C": combiner.C, "threshold": combiner.threshold, "training": combiner.training}
            p = predict(combiner, held.ctx.assessments, held.rows)
            results.append(combiner_result(name, "largest step P(first wrong step)", p))
        report.combiners[held.spec.name] = fitted
        for half in ("dev", "confirm"):
            idx = half_indices(held.solutions, half)
            sub = [held.solutions[i] for i in idx]
            reports = [evaluate_detector(_subset(r, idx), sub, n_boot=n_boot, seed=seed, folds=folds) for r in results]
            roscoe_reports = [r for r in reports if r.family == "roscoe" and r.auroc is not None]
            best = max(roscoe_reports, key=lambda r: r.auroc or 0.0, default=None)
            for r in reports:
                if r.family == "roscoe" and r is not best:
                    continue
                label = f"best ROSCOE ({r.name}, picked on this half)" if r.family == "roscoe" else r.name
                report.rows.append(_detector_row(held.spec.name, half, label, sub, r))
            if by:
                report.group_rows += _groups(
                    held.spec.name, half, held.solutions, idx, results, by, seed, folds, n_boot
                )
    return report


def _groups(
    name: str,
    half: str,
    solutions: Sequence[LabelledSolution],
    idx: Sequence[int],
    results: Sequence[DetectorResult],
    by: str,
    seed: int,
    folds: int,
    n_boot: int,
) -> list[LodoRow]:
    """Each value of ``meta[by]`` among the wrong solutions of ``idx``, evaluated with the correct ones."""
    correct = [i for i in idx if not solutions[i].has_error]
    values = {i: str(solutions[i].meta.get(by, "(none)")) for i in idx if solutions[i].has_error}
    rows = []
    for group in sorted(set(values.values())):
        members = correct + [i for i, v in values.items() if v == group]
        sub = [solutions[i] for i in members]
        for result in results:
            if result.family == "roscoe" or result.unavailable:
                continue
            r = evaluate_detector(_subset(result, members), sub, n_boot=n_boot, seed=seed, folds=folds)
            rows.append(_detector_row(name, half, f"{group}: {result.name}", sub, r))
    return rows


def _detector_row(dataset: str, half: str, label: str, sub: Sequence[LabelledSolution], r: DetectorReport) -> LodoRow:
    """The row of one detector's statistics ``r`` on the solutions ``sub``."""
    return LodoRow(
        dataset,
        half,
        label,
        len(sub),
        sum(s.has_error for s in sub),
        r.auroc,
        r.acc_error,
        r.acc_correct,
        r.f1,
        r.auroc_ci,
        r.f1_ci,
        r.error_counts,
        r.correct_counts,
    )


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _row(r: LodoRow) -> str:
    def ci(value: float | None, interval: tuple[float, float] | None) -> str:
        return _cell(value) + ("" if interval is None else f" [{interval[0]:.3f}, {interval[1]:.3f}]")

    return (
        f"| {r.dataset} | {r.half} | {r.solutions} ({r.with_error}) | {r.detector} | {ci(r.auroc, r.auroc_ci)} | "
        f"{rate_text(*r.error_counts)} | {rate_text(*r.correct_counts)} | {ci(r.f1, r.f1_ci)} |"
    )


def _encoder_note(training: dict[str, Any]) -> str:
    encoders = training.get("encoder") or {}
    return "".join(f", encoder {lg}: {spec}" for lg, spec in encoders.items())


def lodo_markdown(report: LodoReport) -> str:
    """One table: held-out set × half × detector."""
    lines = [
        "| held-out set | half | solutions (wrong) | detector | AUROC | exact first step | correct called correct | F1 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [_row(r) for r in report.rows]
    if report.group_rows:
        lines += ["", f"By {report.by} (each group of wrong solutions with the half's correct ones):", "", *lines[:2]]
        lines += [_row(r) for r in report.group_rows]
    lines += [
        "",
        "AUROC and F1: 95 % percentile-bootstrap interval; exact first step and correct called correct: count "
        "and 95 % Wilson interval.",
    ]
    notes = ["", "Combiners (each fitted on the development halves of the other sets):", ""]
    for held, fitted in report.combiners.items():
        for name, info in fitted.items():
            trained = ", ".join(f"{t['name']} dev ({t['solutions']}{_encoder_note(t)})" for t in info["training"])
            line = f"* {held} / {name}: trained on {trained}; C = {info['C']}, threshold {info['threshold']:.3f}"
            if not any(t["solutions"] > t["with_error"] for t in info["training"]):
                line += " (no correct solution to train on: the threshold maximises exact first steps and cannot weigh false alarms)"
            notes.append(line)
    return "\n".join(lines + notes) + "\n"
