"""The meta-evaluation report as Markdown (a side-by-side table) and as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict

from kg.intervals import rate_text
from reasoning_metrics.metaeval.harness import Interval, MetaEvalReport
from reasoning_metrics.reasons import worded


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ci(interval: Interval) -> str:
    return "" if interval is None else f" [{interval[0]:.3f}, {interval[1]:.3f}]"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell (pipes and line breaks would break the table)."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _chosen(report: MetaEvalReport) -> str:
    """Which of the data's solutions were measured: `` (the dev half, the first 60)``; nothing for all of them."""
    parts = [f"the {report.half} half"] if report.half != "all" else []
    parts += [f"the first {report.limit}"] if report.limit is not None else []
    return f" ({', '.join(parts)})" if parts else ""


def _non_answers(report: MetaEvalReport) -> str:
    unknown = report.with_error - report.located
    return f"; {unknown} wrong with no known step, e.g. non-answers" if unknown else ""


def to_markdown(report: MetaEvalReport, word: Callable[[str], str] | None = None) -> str:
    """A Markdown report: the data, one row per detector, and the headline comparison.

    ``word`` words a detector's reason code (:mod:`reasoning_metrics.reasons`) where it is unavailable; by
    default in English, without naming any option (the command line passes its own, which names its flags).
    """
    word = word or (lambda code: worded(code) or code)
    lines = [
        f"# Meta-evaluation: {_cell(report.data)} ({report.format})",
        "",
        f"{report.solutions} solutions{_chosen(report)}, {report.with_error} with an error "
        f"({report.located} with a known first "
        f"wrong step{_non_answers(report)}). 95% intervals: percentile bootstrap, {report.n_boot} resamples, "
        f"seed {report.seed}; acc. error and acc. correct: count and Wilson interval. "
        f"Scores without their own first-step prediction use a threshold fitted by {report.folds}-fold "
        "cross-validation (never on the solutions it predicts).",
        *(
            ["", "Models: " + ", ".join(f"{k} {_cell(v)}" for k, v in report.models.items()) + "."]
            if report.models
            else []
        ),
        "",
        "| detector | family | AUROC | Somers' D | ProcessBench F1 | acc. error | acc. correct | step AUROC | rule |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for d in report.detectors:
        if d.unavailable:
            lines.append(f"| {d.name} | {d.family} | unavailable: {_cell(word(d.unavailable))} | | | | | | |")
            continue
        lines.append(
            f"| {d.name} | {d.family} | {_num(d.auroc)}{_ci(d.auroc_ci)} "
            f"| {_num(d.somers_d)}{_ci(d.somers_d_ci)} "
            f"| {_num(d.f1)}{_ci(d.f1_ci)} | {rate_text(*d.error_counts)} | {rate_text(*d.correct_counts)} "
            f"| {_num(d.step_auroc)}{_ci(d.step_auroc_ci)} | {d.rule} |"
        )
    unchecked = [d for d in report.detectors if d.not_checked]
    if unchecked:
        lines += [""] + [
            f"{d.name}: {d.not_checked} solution(s) not checked, left out of AUROC and counted wrong by F1 "
            f"(first: {_cell(d.not_checked_example or '')})"
            for d in unchecked
        ]
    c = report.comparison
    if c is not None:
        lines += [
            "",
            f"**{c.headline}** vs the best ROSCOE score by AUROC (**{c.best_roscoe}**, chosen on this data): "
            f"AUROC gain {_num(c.auroc_gain)}{_ci(c.auroc_gain_ci)} (paired bootstrap). "
            "Exact first wrong step on "
            f"erroneous solutions: {_counted(report, c.headline)} vs "
            f"{_counted(report, c.best_roscoe_by_acc_error)} for the best "
            f"ROSCOE score by that measure ({c.best_roscoe_by_acc_error})"
            + (f", {c.exact_step_ratio:.1f}x." if c.exact_step_ratio is not None else "."),
        ]
        if c.matched_roscoe is not None:
            lines.append(
                f"At the same false-alarm rate on correct solutions as {c.headline} (acc. correct >= "
                f"{_correct_counted(report)}), the best any ROSCOE score reaches with a threshold chosen "
                f"on these labels (an upper bound) is {_share(c.matched_acc_error_roscoe, report.located)} "
                f"({c.matched_roscoe})."
            )
    lines += ["", "Orientation: every score is read so that higher means more likely wrong:", ""]
    lines += [f"- {d.name}: {_cell(d.orientation)}" for d in report.detectors if not d.unavailable]
    return "\n".join(lines) + "\n"


def _counted(report: MetaEvalReport, name: str | None) -> str:
    """A detector's exact-first-step rate as count, share and Wilson interval."""
    d = next((d for d in report.detectors if d.name == name), None)
    return "–" if d is None or d.acc_error is None else rate_text(*d.error_counts)


def _correct_counted(report: MetaEvalReport) -> str:
    """The headline's acc. correct as count, share and Wilson interval."""
    c = report.comparison
    d = next((d for d in report.detectors if c is not None and d.name == c.headline), None)
    return "–" if d is None or d.acc_correct is None else rate_text(*d.correct_counts)


def _share(value: float | None, n: int) -> str:
    """A rate known as a share of ``n`` solutions, as count, share and Wilson interval."""
    return "–" if value is None or n <= 0 else rate_text(round(value * n), n)


def to_json(report: MetaEvalReport) -> str:
    """The whole report as one JSON object."""
    return json.dumps(asdict(report), ensure_ascii=False, indent=2)
