"""Does a kind of step flag point at errors? Its rate on first wrong steps against its rate on right steps.

A labelled set's solutions are scored the way ``k12eval score`` scores a run (:func:`score_as_run`: the
stem as source, the teacher's analysis as reference, the loaded encoder's own thresholds, then the
detectors through :func:`~reasoning_metrics.verify.scored.assess_scored`), so every count here is of a
flag ``score`` writes. For each kind, on each half of the set (:mod:`~reasoning_metrics.metaeval.halves`):
how many first wrong steps carry it and how many right steps (the steps before the first wrong one, and
every step of a correct solution), each with its Wilson interval, and the ratio of the two rates with a
95 % interval (Katz's log method, 0.5 added to each cell when one is empty).

The same scoring gives each page score's separation (:func:`separation`): the AUROC of right vs wrong
solutions on each half with a percentile-bootstrap interval; a score whose confirmation-half interval holds
0.5 separates nothing (the rule fixed in #23) and the page greys its column with that reason.

The rule, fixed before measuring: a kind **points at errors** when, on the development half, its rate on
first wrong steps has a Wilson interval above the right steps' (no overlap) and the ratio's lower bound
is above 1. Any other kind is context: the page shows it, greyed, as not a warning, and says why. The
confirmation half is reported beside it, never used to decide.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kg.intervals import Z95, rate_text, wilson_interval
from reasoning_metrics.metaeval.data import LabelledSolution
from reasoning_metrics.metaeval.detection_stats import auroc, bootstrap_ci
from reasoning_metrics.metaeval.detectors import reference_of
from reasoning_metrics.metaeval.halves import half_indices
from reasoning_metrics.reasons import reason
from reasoning_metrics.records import Chain, ChainScores
from reasoning_metrics.verify.flags import SolutionAssessment

HALF_NAMES = ("dev", "confirm")
SIMILARITY = "similarity"
"""The source of the ROSCOE step flags (``unsupported``, ``repeats_earlier``...): they depend on the encoder."""
DETECTOR = "detector"
"""The source of the wrong-step detectors' findings (``arithmetic``, ``reference_value``...)."""
PAGE_METRICS = ("faithfulness_step", "reasoning_alignment", "hallucination", "redundancy", "repetition_step")
"""The similarity scores the page shows (and Repetition-Step), whose separation :func:`separation` measures."""


@dataclass(frozen=True)
class Counts:
    """How often one kind fired on one half: on first wrong steps and on right steps."""

    wrong: int
    wrong_steps: int
    right: int
    right_steps: int

    def ratio(self) -> tuple[float, float, float] | None:
        """The rate on wrong steps over the rate on right steps, with its 95 % interval; ``None`` when a
        side has no steps or the kind fired on none."""
        if not self.wrong_steps or not self.right_steps or not self.wrong + self.right:
            return None  # no steps on a side, or the kind never fired: nothing to compare
        a, n1, c, n2 = float(self.wrong), float(self.wrong_steps), float(self.right), float(self.right_steps)
        if a == 0 or c == 0:  # Haldane: the log of an empty cell is undefined
            a, n1, c, n2 = a + 0.5, n1 + 0.5, c + 0.5, n2 + 0.5
        log = math.log((a / n1) / (c / n2))
        se = math.sqrt(1 / a - 1 / n1 + 1 / c - 1 / n2)
        return math.exp(log), math.exp(log - Z95 * se), math.exp(log + Z95 * se)

    def points_at_errors(self) -> bool:
        """The rule: the wrong steps' Wilson interval above the right steps', and the ratio's lower bound above 1."""
        ratio = self.ratio()
        if ratio is None or not self.wrong:
            return False
        wrong_lo, _ = wilson_interval(self.wrong, self.wrong_steps)
        _, right_hi = wilson_interval(self.right, self.right_steps)
        return wrong_lo > right_hi and ratio[1] > 1

    def as_json(self) -> dict[str, Any]:
        """The counts, each rate as text (count, %, interval) and the ratio, for the JSON report and the page."""
        ratio = self.ratio()
        return {
            "wrong": [self.wrong, self.wrong_steps],
            "right": [self.right, self.right_steps],
            "wrong_rate": rate_text(self.wrong, self.wrong_steps),
            "right_rate": rate_text(self.right, self.right_steps),
            "ratio": None if ratio is None else [round(x, 2) for x in ratio],
        }


@dataclass(frozen=True)
class KindRates:
    """One kind of flag on both halves, and the verdict of the rule."""

    kind: str
    source: str
    """:data:`SIMILARITY` or :data:`DETECTOR`."""
    halves: dict[str, Counts]
    points_at_errors: bool
    """The rule, read on the development half only."""


def stem_of(solution: LabelledSolution) -> str:
    """The question without its option lines (``ck12-labels`` appends one per option): what ``score`` scores against.
    A question whose stem lists its options (GAOKAO-Bench's) is its stem, as ``score`` reads it."""
    n = 0 if solution.meta.get("options_in_stem") else len(solution.meta.get("options") or [])
    return "\n".join(solution.problem.splitlines()[:-n]) if n else solution.problem


def score_as_run(
    solutions: Sequence[LabelledSolution], encoder: Any, nli: Any = None, batch_size: int = 32
) -> tuple[list[ChainScores], list[SolutionAssessment]]:
    """Each solution's step scores and detector findings as ``k12eval score`` writes them for a run's chain.

    ``encoder``, ``nli``: adapters or specs as ``score_chains`` takes them (``nli`` ``None``: no NLI model,
    the contradiction detector unavailable, as ``score --nli none``). The steps are the labelled ones, as
    given (a blank step is scored as ``-``, so that every index stays the label's).
    """
    from reasoning_metrics.metric_table import DEFAULT_METRICS
    from reasoning_metrics.verify.rules.baseline import encoder_scores
    from reasoning_metrics.verify.scored import assess_scored

    chains = [
        Chain(s.id, stem_of(s), [t if t.strip() else "-" for t in s.steps], s.meta.get("analysis") or None, s.lang)  # type: ignore[arg-type]
        for s in solutions
    ]
    metrics = list(dict.fromkeys([*DEFAULT_METRICS, *PAGE_METRICS]))
    scored = encoder_scores(chains, metrics, encoder, nli, batch_size=batch_size, cache=False)
    references = {s.id: ref for s in solutions if (ref := reference_of(s)) is not None}
    nli_by_lang = {lang: nli if nli is not None else reason("not_given", "nli") for lang in ("zh", "en")}
    assessed = assess_scored(
        scored,
        {s.id: s.problem for s in solutions},
        nli_by_lang,
        premises={s.id: stem_of(s) for s in solutions},
        references=references,
        batch_size=batch_size,
    )
    return scored, assessed


def step_kinds(scores: ChainScores, assessment: SolutionAssessment | None) -> list[dict[str, str]]:
    """Per step, the kinds of flag it carries and their source (similarity flags, detector findings)."""
    out: list[dict[str, str]] = []
    for k, step in enumerate(scores.steps):
        kinds: dict[str, str] = {str(flag): SIMILARITY for flag in step.flags}
        if assessment is not None and k < len(assessment.steps):
            kinds |= {str(f.kind): DETECTOR for f in assessment.steps[k].flags}
        out.append(kinds)
    return out


def flag_rates(
    solutions: Sequence[LabelledSolution],
    scored: Sequence[ChainScores],
    assessments: Sequence[SolutionAssessment | None],
    kinds: dict[str, str] | None = None,
) -> list[KindRates]:
    """Every kind's counts on each half, and whether it points at errors (the module's rule).

    ``kinds``: kind -> source of every kind that could fire (those that never fired count 0); by default
    the kinds seen. A non-answer (``first_error`` ``None`` on a wrong solution) has no step to count.
    """
    per_step = [step_kinds(c, a) for c, a in zip(scored, assessments, strict=True)]
    known = dict(kinds or {})
    for steps in per_step:
        for found in steps:
            for kind, source in found.items():
                known.setdefault(kind, source)
    rows = []
    for kind, source in sorted(known.items(), key=lambda item: (item[1], item[0])):
        halves = {}
        for half in HALF_NAMES:
            wrong = wrong_steps = right = right_steps = 0
            for i in half_indices(solutions, half):
                s, steps = solutions[i], per_step[i]
                for k, label in enumerate(s.step_labels[: len(steps)]):
                    fired = kind in steps[k]
                    if label is False:
                        right_steps += 1
                        right += fired
                    elif label is True and k == s.first_error:
                        wrong_steps += 1
                        wrong += fired
            halves[half] = Counts(wrong, wrong_steps, right, right_steps)
        rows.append(KindRates(kind, source, halves, halves["dev"].points_at_errors()))
    return rows


def rates_markdown(rows: Sequence[KindRates], title: str) -> str:
    """The table ``k12eval meta-eval --flag-rates`` prints: each kind's rates on both halves and the verdict."""
    lines = [
        f"# Step flags on first wrong steps vs right steps: {title}",
        "",
        "Each rate: count / steps = % (95 % Wilson interval). Ratio: rate on first wrong steps / rate on right "
        "steps (95 % interval, Katz). A kind points at errors when, on the development half, its interval on "
        "first wrong steps lies above the one on right steps and the ratio's lower bound is above 1; any other "
        "kind is shown on the page as context, not as a warning. The confirmation half is reported, not used.",
        "",
        "| kind | source | dev: first wrong steps | dev: right steps | dev: ratio | confirm: first wrong steps "
        "| confirm: right steps | confirm: ratio | on the page |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        cells = [row.kind, row.source]
        for half in HALF_NAMES:
            c = row.halves[half]
            ratio = c.ratio()
            cells += [
                rate_text(c.wrong, c.wrong_steps),
                rate_text(c.right, c.right_steps),
                "-" if ratio is None else f"{ratio[0]:.2f} ({ratio[1]:.2f}-{ratio[2]:.2f})",
            ]
        cells.append("warning" if row.points_at_errors else "context")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def rates_json(rows: Sequence[KindRates], **about: Any) -> dict[str, Any]:
    """The table as JSON: what the page reads (``reasoning_metrics/flag_evidence.json`` is one), with ``about``
    (the command, the sets, the encoder) beside it."""
    return {
        **about,
        "rule": "points at errors: on the dev half, the Wilson interval on first wrong steps above the one on "
        "right steps and the rate ratio's lower bound above 1",
        "kinds": {
            row.kind: {
                "source": row.source,
                "points_at_errors": row.points_at_errors,
                **{half: row.halves[half].as_json() for half in HALF_NAMES},
            }
            for row in rows
        },
    }


def separation(
    solutions: Sequence[LabelledSolution], scored: Sequence[ChainScores], n_boot: int = 1000, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Per page score, its AUROC of wrong vs right solutions on each half (read as: lower score = more likely
    wrong; a non-answer counts as wrong), a 95 % percentile-bootstrap interval, and whether it separates (the
    confirmation-half interval does not hold 0.5). A score no solution has is not measured, and says so."""
    from reasoning_metrics.metric_table import METRICS

    out: dict[str, dict[str, Any]] = {}
    for name in PAGE_METRICS:
        sign = -1.0 if METRICS[name].direction == "higher" else 1.0
        row: dict[str, Any] = {}
        for half in HALF_NAMES:
            idx = [i for i in half_indices(solutions, half) if scored[i].scores.get(name) is not None]
            values = [sign * float(scored[i].scores[name] or 0.0) for i in idx]
            labels = [solutions[i].has_error for i in idx]

            def stat(b: Any, values: list[float] = values, labels: list[bool] = labels) -> float | None:
                return auroc([values[k] for k in b], [labels[k] for k in b])

            ci = bootstrap_ci(stat, len(idx), n_boot=n_boot, seed=seed)
            area = auroc(values, labels)
            row[half] = {
                "auroc": None if area is None else round(area, 3),
                "ci": None if ci is None else [round(ci[0], 3), round(ci[1], 3)],
                "solutions": len(idx),
                "wrong": sum(labels),
            }
        ci = row["confirm"]["ci"]
        if ci is None:
            out[name] = {
                "separates": None,
                "why": "not measured: no solutions with this score on the set",
                "why_zh": "未测量：该数据集上没有这项得分",
            }
            continue
        row["separates"] = not ci[0] <= 0.5 <= ci[1]
        out[name] = row
    return out


def separation_markdown(rows: dict[str, dict[str, Any]]) -> str:
    """The separation table ``meta-eval --flag-rates`` prints under the flag rates."""
    lines = [
        "",
        "## Does a page score tell right from wrong solutions?",
        "",
        "AUROC of wrong vs right solutions (lower score = more likely wrong; a non-answer is wrong), 95 % percentile "
        "bootstrap interval, (solutions, wrong). A score whose confirmation-half interval holds 0.5 separates "
        "nothing: the page greys its column and says so.",
        "",
        "| score | dev AUROC | confirm AUROC | on the page |",
        "|---|---|---|---|",
    ]
    for name, row in rows.items():
        if row.get("separates") is None:
            lines.append(f"| {name} | {row.get('why', '')} | | shown |")
            continue
        cells = [
            f"{row[h]['auroc']} [{row[h]['ci'][0]}, {row[h]['ci'][1]}] ({row[h]['solutions']}, {row[h]['wrong']})"
            for h in HALF_NAMES
        ]
        lines.append(f"| {name} | {cells[0]} | {cells[1]} | {'separates' if row['separates'] else 'greyed'} |")
    return "\n".join(lines) + "\n"
