"""The benchmark papers' result tables, generated from a question frame (see :mod:`reports.aggregate`).

Each function returns a display table (a DataFrame of strings, ready for CSV
and :func:`reports.markdown.markdown`) whose cells are percentages with one decimal.
Accuracy is micro (right answers over scored questions) unless a column says
``macro``. Empty cells are ``—``.
"""

from __future__ import annotations

import math

import pandas as pd

from kg.records import QuestionType
from reports.aggregate import SCORE_PREFIX
from runners.protocol import JUDGMENT_RULES, JudgmentRule
from runners.records import MODE_INFO

DASH = "—"
TYPE_ORDER = [t.value for t in QuestionType]
MODE_ORDER: list[str] = list(MODE_INFO)
VARIANT_ORDER = ["original", "shuffled", "distractors"]

CK12_TABLE2: list[tuple[str, tuple[str, ...]]] = [
    ("Faithfulness-Step", ("faithfulness", "faithfulness_step")),
    ("Source-Consistency", ("discourse_representation", "source_consistency")),
    ("Reasoning Alignment", ("reasoning_alignment",)),
    ("Hallucination", ("external_hallucination", "hallucination")),
    ("Redundancy", ("redundancy",)),
]
"""CK12 Table 2 columns and the metric names (ours first, then aliases) each is read from.

All five are oriented "higher is better", as ROSCOE computes them; the paper prints
Source-Consistency as the maximum contradiction probability instead, which the
table adds as ``Max contradiction (paper)``.
"""


def pct(value: float) -> str:
    """``0.4567`` -> ``45.7``; ``—`` for a missing value."""
    return DASH if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.1f}"


def _scored(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["scored"]]


def _ordered(values: list[str], order: list[str]) -> list[str]:
    return sorted(values, key=lambda v: (order.index(v) if v in order else len(order), v))


def _sort_runs(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rank = {
        "variant": lambda s: s.map(lambda v: VARIANT_ORDER.index(v) if v in VARIANT_ORDER else 99),
        "mode": lambda s: s.map(lambda v: MODE_ORDER.index(v) if v in MODE_ORDER else 99),
    }
    return table.sort_values(keys, key=lambda s: rank[str(s.name)](s) if s.name in rank else s, kind="stable")


JudgmentScoring = JudgmentRule
JUDGMENT_SCORING: tuple[JudgmentScoring, ...] = JUDGMENT_RULES
"""``per-statement`` (CK12's released scorer, and every bundled protocol's rule, :mod:`runners.protocol`):
each statement counts on its own; ``per-item`` (k12eval's stricter rule: neither the CK12 paper nor its
release says so): a multi-statement judgment is right only when every statement is."""


def type_by_mode_caption(judgment: JudgmentScoring = "per-statement") -> str:
    """What the report counts for a judgment question, for Table 1's caption (it holds for every table and
    for ``nodes.csv``)."""
    if judgment == "per-item":
        return (
            "Judgment scored per item: right only when every statement is right (k12eval's stricter rule; "
            "neither the CK12 paper nor its released scorer counts so). Every table and nodes.csv count so."
        )
    return (
        "Judgment scored per statement: each statement counts on its own (CK12's released scorer); every table "
        "and nodes.csv count a judgment question's statements, not the question."
    )


JUDGMENT_CAPTION_ZH = {
    "per-item": "判断题按题计分：每个判断都对才算对（k12eval 更严的规则，CK12 论文和它发布的评分脚本都不这样计）。",
    "per-statement": "判断题按判断计分：每个判断单独计分（CK12 发布的评分脚本）。",
}
"""Table 1's caption on the Chinese page, per judgment scoring."""


def type_by_mode(frame: pd.DataFrame, judgment: JudgmentScoring = "per-statement") -> pd.DataFrame:
    """CK12 Table 1: accuracy by question type per variant x model x mode, each cell ``arts / science``.

    Variants (original, shuffled, distractors) are rows when the runs hold more than one. Judgment
    is scored ``judgment`` way (see :data:`JUDGMENT_SCORING`; a frame of
    :func:`reports.aggregate.statement_rows` already counts statements); ``attrs["caption"]`` says which.
    """
    if judgment not in JUDGMENT_SCORING:
        raise ValueError(f"judgment scoring {judgment!r}: choose one of {', '.join(JUDGMENT_SCORING)}")
    scored = _scored(frame)
    if scored.empty:
        return pd.DataFrame()
    keys = ["variant", "model", "mode"]
    types = _ordered(list(scored["type"].unique()), TYPE_ORDER)
    rows = []
    for key, sub in scored.groupby(keys, sort=False):
        row = dict(zip(keys, key, strict=True))
        for qtype in [*types, "overall"]:
            part = sub if qtype == "overall" else sub[sub["type"] == qtype]
            acc = _statement_acc if qtype == "judgment" and judgment == "per-statement" else _acc
            row[qtype] = " / ".join(pct(acc(part[part["group"] == g])) for g in ("arts", "science"))
        rows.append(row)
    table = _sort_runs(pd.DataFrame(rows), keys).reset_index(drop=True)
    table.attrs["caption"] = type_by_mode_caption(judgment)
    table.attrs["caption_zh"] = JUDGMENT_CAPTION_ZH[judgment]
    return table


def _statement_acc(part: pd.DataFrame) -> float:
    """Right statements over all statements (an unparsed item's statements count as wrong)."""
    if not len(part):
        return math.nan
    statements = part["statements"].fillna(1)
    right = part["partial"].fillna(part["correct"]) * statements
    return float(right.sum() / statements.sum())


def _acc(part: pd.DataFrame) -> float:
    return float(part["correct"].mean()) if len(part) else math.nan


def cot_step_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """CK12 Table 2: accuracy and mean step scores (x100) per model x mode, over the questions with step scores."""
    columns = {c[len(SCORE_PREFIX) :] for c in frame.columns if str(c).startswith(SCORE_PREFIX)}
    chosen = [(title, next((n for n in names if n in columns), None)) for title, names in CK12_TABLE2]
    if not any(name for _, name in chosen):
        return pd.DataFrame()
    score_cols = [SCORE_PREFIX + n for _, n in chosen if n]
    with_scores = frame[frame[score_cols].notna().any(axis=1)]
    rows = []
    for (model, mode, variant), sub in with_scores.groupby(["model", "mode", "variant"], sort=False):
        row: dict[str, object] = {"model": model, "mode": mode, "variant": variant, "n": int(sub["scored"].sum())}
        row["Acc"] = pct(_acc(_scored(sub)))
        for title, name in chosen:
            row[title] = pct(float(sub[SCORE_PREFIX + name].mean())) if name else DASH
        consistency = dict(chosen).get("Source-Consistency")
        mean_consistency = float(sub[SCORE_PREFIX + consistency].mean()) if consistency else math.nan
        row["Max contradiction (paper, lower is better)"] = pct(1 - mean_consistency)
        rows.append(row)
    if not rows:  # scores exist, but none has a value (every chain too long, or no model)
        return pd.DataFrame()
    return _sort_runs(pd.DataFrame(rows), ["variant", "model", "mode"]).reset_index(drop=True)


def default_subject_stage(frame: pd.DataFrame) -> tuple[str, str | None]:
    """CK12 Table 3's choice (junior-high physics) when answered, else the subject and stage with most questions."""
    scored = _scored(frame)
    if ((scored["subject"] == "物理") & (scored["stage"] == "middle")).any():
        return "物理", "middle"
    counts = scored.groupby(["subject", "stage"], dropna=False).size().sort_values(ascending=False)
    if counts.empty:
        return "", None
    subject, stage = counts.index[0]
    return str(subject), None if pd.isna(stage) else str(stage)


def level1_accuracy(frame: pd.DataFrame, subject: str, stage: str | None) -> pd.DataFrame:
    """CK12 Table 3: accuracy of every level-1 point of one subject and stage, one column per run."""
    scored = _scored(frame)
    part = scored[scored["subject"] == subject]
    if stage is not None:
        part = part[part["stage"] == stage]
    if part.empty:
        return pd.DataFrame()
    runs = list(dict.fromkeys(part["run"]))
    rows = []
    for level1, sub in part.groupby("level1", sort=True):
        row: dict[str, object] = {"level1": level1, "n": int(sub.groupby("run").size().max())}
        for run in runs:
            row[run] = pct(_acc(sub[sub["run"] == run]))
        rows.append(row)
    return pd.DataFrame(rows)


def category_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """CMMLU style: per run, each category is the unweighted mean of its subjects' accuracies.

    A subject counts in every category it sits in (``groups``; CMMLU's China specific subjects are in
    a second one); the average is over subjects, each once.
    """
    scored = _scored(frame[frame["group"].notna()])
    if scored.empty:
        return pd.DataFrame()
    groups_of = scored["groups"] if "groups" in scored else scored["group"].map(lambda g: (g,))
    scored = scored.assign(groups=groups_of.map(lambda gs: tuple(gs) if len(gs) else ()))
    subjects = (
        scored.groupby(["run", "subject"], sort=False)
        .agg(correct=("correct", "mean"), groups=("groups", "first"))
        .reset_index()
    )
    by_group = subjects.explode("groups").dropna(subset=["groups"])
    groups = sorted(by_group["groups"].unique())
    rows = []
    for run, sub in subjects.groupby("run", sort=False):
        first = frame[frame["run"] == run].iloc[0]
        row: dict[str, object] = {"run": run, "model": first["model"], "mode": first["mode"]}
        in_run = by_group[by_group["run"] == run]
        for group in groups:
            row[group] = pct(float(in_run[in_run["groups"] == group]["correct"].mean()))
        row["average (macro over subjects)"] = pct(float(sub["correct"].mean()))
        rows.append(row)
    return pd.DataFrame(rows)


RANDOM_GUESS = "Random-Guess"
PERFORMANCE_AVERAGE = "Performance-Average"
PERFORMANCE_VARIANCE = "Performance-Variance"
"""Xiezhi's extra rows: what ranking the options at random scores, and the mean and spread across models.
The paper labels the spread "Performance-Variance", but its values (0.062-0.104 in its Table 1) are the
population standard deviation of the models' rows (issue #31 recomputed all 19 columns; a variance of the same
rows would read 0.004-0.011); the row keeps the paper's label and shows the SD."""


def ranking(frame: pd.DataFrame, k: int = 4) -> pd.DataFrame:
    """Xiezhi style: MRR, Hit@1, Hit@k, mean rank and mean rank / number of options, for runs that ranked options.

    Under the runs of each variant (a setting: 4 options, ``options-50``...), as in Xiezhi's tables:
    ``Random-Guess`` (the expected value of each metric when the options of the same questions are
    ranked at random: MRR = H(n) / n, Hit@k = k / n, mean rank (n + 1) / 2 for n options, averaged
    over the questions), and with two runs or more ``Performance-Average`` and ``Performance-Variance``
    of each metric across those runs (the latter, as in the paper, the population standard deviation, in the
    metric's own unit: points for a percentage; their ``n`` counts runs). With several variants, each extra
    row names its own.
    """
    ranked = frame[frame["rank"].notna() & frame["n_options"].notna()]
    rows: list[dict[str, object]] = []
    variants = list(dict.fromkeys(ranked["variant"])) if len(ranked) else []
    for variant in variants:
        part = ranked[ranked["variant"] == variant]
        values: list[dict[str, float]] = []
        for run, sub in part.groupby("run", sort=False):
            metrics = _rank_metrics(sub["rank"], sub["n_options"], k)
            values.append(metrics)
            first = sub.iloc[0]
            rows.append(
                {"run": run, "model": first["model"], "mode": first["mode"], "variant": variant, "n": len(sub)}
                | _shown(metrics, k)
            )
        suffix = f" · {variant}" if len(variants) > 1 else ""
        rows += _xiezhi_rows(part, values, k, suffix, variant)
    return pd.DataFrame(rows)


def _xiezhi_rows(
    part: pd.DataFrame, values: list[dict[str, float]], k: int, suffix: str, variant: str
) -> list[dict[str, object]]:
    """Random-Guess over the questions of ``part`` (once each), and the average and the population standard
    deviation (labelled Performance-Variance, as the paper labels it) of ``values``."""
    questions = part.drop_duplicates("question_id")["n_options"].astype(int)
    guess = {
        "MRR": float(questions.map(lambda n: sum(1 / r for r in range(1, n + 1)) / n).mean()),
        "Hit@1": float((1 / questions).mean()),
        f"Hit@{k}": float(questions.map(lambda n: min(k, n) / n).mean()),
        "mean rank": float(((questions + 1) / 2).mean()),
        "mean rank / options": float(((questions + 1) / (2 * questions)).mean()),
    }
    blank = {"mode": DASH, "variant": variant}
    name = RANDOM_GUESS + suffix
    rows: list[dict[str, object]] = [{"run": name, "model": name, **blank, "n": len(questions)} | _shown(guess, k)]
    if len(values) > 1:
        table = pd.DataFrame(values)
        across = {**blank, "n": len(values)}
        average, variance = PERFORMANCE_AVERAGE + suffix, PERFORMANCE_VARIANCE + suffix
        rows.append({"run": average, "model": average, **across} | _shown(table.mean().to_dict(), k))
        rows.append(
            {"run": variance, "model": variance, **across} | _shown(table.std(ddof=0).to_dict(), k, spread=True)
        )
    return rows


def _rank_metrics(rank: pd.Series, n_options: pd.Series, k: int) -> dict[str, float]:
    return {
        "MRR": float((1 / rank).mean()),
        "Hit@1": float((rank <= 1).mean()),
        f"Hit@{k}": float((rank <= k).mean()),
        "mean rank": float(rank.mean()),
        "mean rank / options": float((rank / n_options).mean()),
    }


def _shown(metrics: dict[str, float], k: int, spread: bool = False) -> dict[str, str]:
    """The metrics as the table writes them: hits in percent, a ``spread`` (standard deviation) of hits in points."""
    hits = ("Hit@1", f"Hit@{k}")
    return {
        "MRR": f"{metrics['MRR']:.3f}",
        **{h: (f"{100 * metrics[h]:.1f}" if spread else pct(metrics[h])) for h in hits},
        "mean rank": f"{metrics['mean rank']:.2f}",
        "mean rank / options": f"{metrics['mean rank / options']:.3f}",
    }
