"""Per-group results: for a diagnostic set, how each detector does on each kind of planted error.

Each group is the solutions whose ``meta[key]`` has one value, evaluated together with the
solutions of the reference value (``original``: the unperturbed solutions), so its AUROC says
how well a detector tells that kind of error from a correct solution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from kg.intervals import rate_text
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.detectors import DetectorResult
from reasoning_metrics.metaeval.harness import evaluate_detector


@dataclass
class GroupRow:
    """One detector on one group."""

    group: str
    detector: str
    solutions: int
    auroc: float | None
    acc_error: float | None
    step_auroc: float | None
    auroc_ci: tuple[float, float] | None = None
    error_counts: tuple[int, int] = (0, 0)
    """``acc_error`` as (found exactly, solutions with a known first wrong step)."""


def _subset(result: DetectorResult, idx: Sequence[int]) -> DetectorResult:
    return replace(
        result,
        solution_scores=[result.solution_scores[i] for i in idx],
        step_scores=[result.step_scores[i] for i in idx],
        native=None if result.native is None else [result.native[i] for i in idx],
    )


def by_group(
    solutions: Sequence[LabelledSolution],
    results: Sequence[DetectorResult],
    *,
    key: str = "kind",
    reference: str = "original",
    seed: int = 0,
    folds: int = 5,
    n_boot: int = 200,
) -> list[GroupRow]:
    """Rows for every (group, detector); groups in order of first appearance, reference excluded.

    Without any solution of the ``reference`` value (real answers labelled by hand, as
    ``ck12-labels``), each group is compared with the solutions that have no wrong step.
    """
    values = [str(s.meta.get(key, "")) for s in solutions]
    base = [i for i, v in enumerate(values) if v == reference]
    if not base:  # a labelled set of real answers: the reference is its solutions without a wrong step
        base = [i for i, s in enumerate(solutions) if not s.has_error]
    in_base = set(base)
    rows = []
    for group in dict.fromkeys(v for i, v in enumerate(values) if i not in in_base):
        idx = base + [i for i, v in enumerate(values) if v == group]
        subset = [solutions[i] for i in idx]
        for result in results:
            if result.unavailable:
                continue
            report = evaluate_detector(_subset(result, idx), subset, n_boot=n_boot, seed=seed, folds=folds)
            rows.append(
                GroupRow(
                    group,
                    result.name,
                    len(idx),
                    report.auroc,
                    report.acc_error,
                    report.step_auroc,
                    report.auroc_ci,
                    report.error_counts,
                )
            )
    return rows


def group_markdown(rows: Sequence[GroupRow]) -> str:
    """A table with one line per group and, per detector, ``AUROC / exact-step accuracy``."""
    detectors = list(dict.fromkeys(r.detector for r in rows))
    groups = list(dict.fromkeys(r.group for r in rows))
    cell = {(r.group, r.detector): r for r in rows}

    def fmt(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    lines = [
        "| kind (vs correct solutions) | " + " | ".join(detectors) + " |",
        "|---|" + "---|" * len(detectors),
    ]

    def ci(row: GroupRow) -> str:
        return "" if row.auroc_ci is None else f" [{row.auroc_ci[0]:.2f}, {row.auroc_ci[1]:.2f}]"

    for group in groups:
        cells = [
            f"{fmt(cell[group, d].auroc)}{ci(cell[group, d])} / {rate_text(*cell[group, d].error_counts)}"
            for d in detectors
        ]
        lines.append(f"| {group} | " + " | ".join(cells) + " |")
    return (
        "\n".join(lines) + "\n\nEach cell: solution AUROC [95 % bootstrap interval] / exact first wrong steps "
        "found (count, 95 % Wilson interval).\n"
    )
