"""The benchmark papers' result tables, generated from a question frame (see :mod:`reports.aggregate`).

Each function returns a display table (a DataFrame of strings, ready for CSV
and :func:`reports.markdown.markdown`) whose cells are percentages with one decimal.
Accuracy is micro (right answers over scored questions) unless a column says
``macro``. Empty cells are ``—``.
"""

from __future__ import annotations

import math

import pandas as pd

from kg.records import QuestionType, Stage
from reports.aggregate import SCORE_PREFIX
from runners.counting import JUDGMENT_RULES, JudgmentRule, judgment_rule
from runners.records import MODE_INFO

DASH = "—"
TYPE_ORDER = [t.value for t in QuestionType]
MODE_ORDER: list[str] = list(MODE_INFO)
VARIANT_ORDER = ["original", "shuffled", "distractors"]
TABLE1_TYPES = ["single_choice", "multiple_choice", "fill_in_blank", "judgment", "sorting", "cloze"]
"""CK12 Table 1's rows as the paper orders them: Single, Multi, Filling, Judging, Sorting (cloze, which the
paper does not score, last)."""
TABLE1_MODES = ["zero-shot", "few-shot", "zero-shot-cot", "few-shot-cot"]
"""CK12 Table 1's modes within a type, as the paper orders them (other tables keep :data:`MODE_ORDER`)."""

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


def _sort_runs(table: pd.DataFrame, keys: list[str], modes: list[str] = MODE_ORDER) -> pd.DataFrame:
    rank = {
        "variant": lambda s: s.map(lambda v: VARIANT_ORDER.index(v) if v in VARIANT_ORDER else 99),
        "mode": lambda s: s.map(lambda v: modes.index(v) if v in modes else 99),
    }
    return table.sort_values(keys, key=lambda s: rank[str(s.name)](s) if s.name in rank else s, kind="stable")


JudgmentScoring = JudgmentRule
JUDGMENT_SCORING: tuple[JudgmentScoring, ...] = JUDGMENT_RULES
"""``per-statement`` (every bundled protocol's rule, :mod:`runners.protocol`): each statement counts on its
own, read by k12eval's extraction; ``per-item`` (k12eval's stricter rule: neither the CK12 paper nor its
release says so): a multi-statement judgment is right only when every statement is; ``ck12-release``: the
released evaluator's count (:func:`runners.ck12_release.release_judgment`). :mod:`runners.counting`."""

_CAPTIONS: dict[JudgmentScoring, tuple[str, str]] = {
    "per-item": (
        "Judgment scored per item: right only when every statement is right (k12eval's stricter rule; "
        "neither the CK12 paper nor its released scorer counts so). Every table and nodes.csv count so.",
        "判断题按题计分：每个判断都对才算对（k12eval 更严的规则，CK12 论文和它发布的评分脚本都不这样计）。",
    ),
    "per-statement": (
        "Judgment scored per statement: each statement counts on its own, read by k12eval's extraction, a "
        "statement without a verdict as wrong; every accuracy table and nodes.csv count a judgment question's "
        "statements, not the question (the comparisons question by question, paired runs and the difficulty "
        "distribution, count it right when every statement is).",
        "判断题按判断计分：每个判断单独计分（k12eval 的提取，没有给出判断的算错）。",
    ),
    "ck12-release": (
        "Judgment scored by CK12's released scorer: every T/F (else 对/错, else √/×) in the output, paired with "
        "the statements in order; statements beyond the verdicts found are not counted (the paper's rule); "
        "every accuracy table and nodes.csv count so (the comparisons question by question, paired runs and the "
        "difficulty distribution, count a judgment question right when every statement is).",
        "判断题按 CK12 发布的评分脚本计分：输出中的每个 T/F（或对/错、√/×）依次对应各个判断，多出的判断不计入（论文的规则）。",
    ),
}


def type_by_mode_caption(judgment: JudgmentScoring = "per-statement") -> str:
    """What the report counts for a judgment question, for Table 1's caption (it holds for every table and
    for ``nodes.csv``)."""
    return _CAPTIONS[judgment][0]


JUDGMENT_CAPTION_ZH = {rule: zh for rule, (_, zh) in _CAPTIONS.items()}
"""Table 1's caption on the Chinese page, per judgment scoring."""

VARIANT_MARKS = {"original": "", "shuffled": "*", "distractors": "**"}
"""The paper's marks: ``Single*`` options shuffled, ``Single**`` ten distractors added."""
GROUPS = ("arts", "science")
AVERAGE = "average"
"""Table 1's last pair of columns with two models or more: the paper's Average over models."""
ASKED_ROW = "asked / in bank"
"""Table 1's last rows: questions asked / questions of the runs' banks, per model, arts and science."""
_LAYOUT = (
    "Rows: question type x variant (* options shuffled, ** 10 distractors added) x mode; two columns per model, "
    "arts and science, as the paper's Table 1. Accuracy over the questions asked (— : none asked); the "
    f"'{ASKED_ROW}' rows say how many."
)
_LAYOUT_ZH = "行：题型 × 版本（* 打乱选项，** 增加 10 个干扰项）× 模式；每个模型两列：文科、理科，同论文表 1。正确率只计作答过的题（—：没有作答）；最后几行给出作答题数 / 题库题数。"


def frame_rule(frame: pd.DataFrame, judgment: JudgmentScoring | None = None) -> JudgmentScoring:
    """The judgment rule ``frame`` was counted under (its ``judgment_rule`` column); ``judgment`` must agree
    with it (a frame without the column is taken to follow ``judgment``, by default ``per-statement``)."""
    if judgment is not None:
        judgment_rule(judgment, "judgment")
    named = set(frame["judgment_rule"].dropna()) if "judgment_rule" in frame else set()
    if len(named) > 1 or (judgment is not None and named and named != {judgment}):
        raise ValueError(f"the frame was counted under {', '.join(sorted(named))}, not {judgment}")
    return judgment_rule(next(iter(named), judgment or "per-statement"), "judgment_rule")


def type_by_mode(
    frame: pd.DataFrame, judgment: JudgmentScoring | None = None, scope: pd.DataFrame | None = None
) -> pd.DataFrame:
    """CK12 Table 1 in the paper's orientation: a row per question type x variant x mode (the paper's
    Single, Single*, Single**, Multi, ... rows, each in four modes), then ``overall``; two columns per model,
    ``<model> · arts`` and ``<model> · science`` (the paper's Art / Science), and with two models or more
    ``average · arts`` / ``average · science``, the unweighted mean of the models asked (the paper's Average).

    Accuracy is over the units asked (``units`` / ``units_right`` of a question frame or of its
    :func:`reports.aggregate.statement_rows`; the frame's judgment rule, :func:`frame_rule`, which the caption
    names). The ``asked / in bank`` rows give per variant x mode the questions each model was asked of how many
    its runs' banks hold (``scope``, :func:`reports.aggregate.scope_frame`; without it, those with a record).
    """
    judgment = frame_rule(frame, judgment)
    # The paper's arts / science columns: a bank of other groups (C-Eval's STEM, Humanities, ...) has no cell here,
    # and its runs no column, rather than "—" everywhere and an "asked / in bank 0 / 0" that was never so.
    frame = frame[frame["group"].isin(GROUPS)]
    scored = _scored(frame)
    if scored.empty:
        return pd.DataFrame()
    models = list(dict.fromkeys(frame["model"]))
    averaged = len(models) > 1
    columns = [f"{model} · {group}" for model in [*models, *([AVERAGE] if averaged else [])] for group in GROUPS]
    rows: list[dict[str, object]] = []
    for qtype in [*_ordered(list(scored["type"].unique()), TABLE1_TYPES), "overall"]:
        part = scored if qtype == "overall" else scored[scored["type"] == qtype]
        for (variant, mode), sub in part.groupby(["variant", "mode"], sort=False):
            row: dict[str, object] = {"type": qtype, "variant": variant, "mode": mode}
            for g in GROUPS:
                accs = [_acc(sub[(sub["model"] == model) & (sub["group"] == g)]) for model in models]
                row |= {f"{model} · {g}": pct(acc) for model, acc in zip(models, accs, strict=True)}
                if averaged:  # the paper's Average: the models' accuracies, unweighted (those asked)
                    asked = [a for a in accs if not math.isnan(a)]
                    row[f"{AVERAGE} · {g}"] = pct(sum(asked) / len(asked) if asked else math.nan)
            rows.append(row)
    rows += _asked_rows(frame, scope, models)
    table = pd.DataFrame(rows, columns=["type", "variant", "mode", *columns]).fillna(DASH)
    order = {name: i for i, name in enumerate([*TABLE1_TYPES, "overall", ASKED_ROW])}
    table = _sort_runs(table, ["variant", "mode"], TABLE1_MODES)
    table = table.sort_values("type", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
    table.attrs["caption"] = f"{type_by_mode_caption(judgment)} {_LAYOUT}"
    table.attrs["caption_zh"] = JUDGMENT_CAPTION_ZH[judgment] + _LAYOUT_ZH
    return table


def _asked_rows(frame: pd.DataFrame, scope: pd.DataFrame | None, models: list[str]) -> list[dict[str, object]]:
    """Per variant x mode: ``asked / in bank`` for each model, arts and science."""
    questions = frame[frame["lead"]] if "lead" in frame else frame
    bank = questions if scope is None else scope
    rows: list[dict[str, object]] = []
    for (variant, mode), sub in questions.groupby(["variant", "mode"], sort=False):
        held = bank[(bank["variant"] == variant) & (bank["mode"] == mode)]
        row: dict[str, object] = {"type": ASKED_ROW, "variant": variant, "mode": mode}
        for model in models:
            for g in GROUPS:
                asked = int((_asked(sub) & (sub["model"] == model) & (sub["group"] == g)).sum())
                in_bank = int(((held["model"] == model) & (held["group"] == g)).sum())
                row[f"{model} · {g}"] = f"{asked:,} / {in_bank:,}"
        rows.append(row)
    return rows


def _asked(part: pd.DataFrame) -> pd.Series:
    """Which rows are asked questions (``scored`` for a frame made before ``asked`` was a column)."""
    return part["asked"] if "asked" in part else part["scored"]


def _acc(part: pd.DataFrame) -> float:
    """Right units over units asked (``units``: a judgment question's statements under a per-statement rule);
    ``correct``'s mean for a frame without them."""
    if not len(part):
        return math.nan
    if "units" not in part:
        return float(part["correct"].mean())
    counted = float(part["units"].sum())
    return float(part["units_right"].sum()) / counted if counted else math.nan


def judgment_rules(frame: pd.DataFrame) -> pd.DataFrame:
    """Judgment accuracy of each run under every rule side by side (:data:`JUDGMENT_SCORING`): right units
    over units counted, and the 95% Wilson interval. ``ck12-release`` is what CK12's released ``metric.py``
    prints for the same answers; ``per-statement`` and ``per-item`` are k12eval's."""
    from reports.stats import wilson_interval

    if frame.empty or "statements_counted:per-item" not in frame:
        return pd.DataFrame()
    judged = frame[(frame["type"] == QuestionType.JUDGMENT.value) & frame["scored"]]
    rows = []
    for run, sub in judged.groupby("run", sort=False):
        first = sub.iloc[0]
        row: dict[str, object] = {"run": run, "model": first["model"], "mode": first["mode"]}
        row |= {"variant": first["variant"], "questions": len(sub)}
        for rule in JUDGMENT_SCORING:
            right = int(sub[f"statements_right:{rule}"].sum())
            counted = int(sub[f"statements_counted:{rule}"].sum())
            lo, hi = wilson_interval(right, counted)
            shown = f"{pct(right / counted)} ({pct(lo)}–{pct(hi)})" if counted else DASH
            row |= {rule: shown, f"{rule} n": f"{right:,} / {counted:,}"}
        rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs["caption"] = (
        "Judgment accuracy under each rule, with the 95% Wilson interval; 'n' is right / counted (statements, or "
        "questions per item). ck12-release counts as the released evaluator does (statements it finds no verdict "
        "for are not counted): the paper's rule."
    )
    table.attrs["caption_zh"] = (
        "各计分规则下的判断题正确率（95% 威尔逊区间）；n 为答对数 / 计入数。ck12-release 与发布的评分脚本相同"
        "（找不到判断的语句不计入），即论文的规则。"
    )
    return table


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
            # A score over fewer chains than n (Reasoning Alignment needs a reference) says over how many.
            had = int(sub[SCORE_PREFIX + name].notna().sum()) if name else 0
            shown = pct(float(sub[SCORE_PREFIX + name].mean())) if name else DASH
            row[title] = shown if not name or had in (0, row["n"]) else f"{shown} (n={had})"
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


def level1_accuracy(
    frame: pd.DataFrame, subject: str, stage: str | None, scope: pd.DataFrame | None = None
) -> pd.DataFrame:
    """CK12 Table 3: accuracy of every level-1 point of one subject and stage, one column per run, and beside
    it ``<run> · asked / in bank``: questions asked of those its bank holds under the point (``scope``,
    :func:`reports.aggregate.scope_frame`; without it, those with a record). A point the run asked nothing
    under shows ``—``."""
    questions = frame[frame["lead"]] if "lead" in frame else frame
    bank = questions if scope is None or scope.empty else scope

    def of_subject(part: pd.DataFrame) -> pd.DataFrame:
        part = part[part["subject"] == subject]
        return part if stage is None else part[part["stage"] == stage]

    mine, held, counted = of_subject(questions), of_subject(bank), of_subject(frame)
    if not _asked(mine).any():
        return pd.DataFrame()
    runs = list(dict.fromkeys(mine["run"]))
    rows = []
    for level1 in sorted(set(held["level1"]) | set(mine["level1"])):
        row: dict[str, object] = {"level1": level1}
        for run in runs:
            scored = _scored(counted[(counted["run"] == run) & (counted["level1"] == level1)])
            asked = int(_asked(mine[(mine["run"] == run) & (mine["level1"] == level1)]).sum())
            in_bank = int(((held["run"] == run) & (held["level1"] == level1)).sum())
            row[run] = pct(_acc(scored))
            row[f"{run} · {ASKED_ROW}"] = f"{asked:,} / {in_bank:,}"
        rows.append(row)
    table = pd.DataFrame(rows)
    # The subject and stage the rows are of (the default picks one: junior-high physics, else the biggest).
    named = Stage(stage) if stage in {s.value for s in Stage} else None
    table.attrs["caption"] = f"Level-1 points of {subject}" + (
        f", {named.value} school ({named.zh})." if named else "."
    )
    table.attrs["caption_zh"] = f"{named.zh if named else ''}{subject}的一级知识点。"
    return table


def category_scores(frame: pd.DataFrame, scope: pd.DataFrame | None = None) -> pd.DataFrame:
    """CMMLU style: per run, each category is the unweighted mean of its subjects' accuracies (right units over
    units asked, as every table counts them).

    A subject counts in every category it sits in (``groups``; CMMLU's China specific subjects are in
    a second one); the average is over subjects, each once, and only over subjects asked. ``asked / in bank``
    says how many questions the run was asked of those its bank holds (``scope``,
    :func:`reports.aggregate.scope_frame`; without it, those with a record).
    """
    scored = _scored(frame[frame["group"].notna()])
    if scored.empty:
        return pd.DataFrame()
    groups_of = scored["groups"] if "groups" in scored else scored["group"].map(lambda g: (g,))
    scored = scored.assign(groups=groups_of.map(lambda gs: tuple(gs) if len(gs) else ()))
    # A subject's accuracy counts what every table counts (:func:`_acc`: a judgment question's statements under a
    # per-statement rule), so the average over subjects is nodes.csv's macro accuracy of the run.
    grouped = scored.groupby(["run", "subject"], sort=False)
    subjects = grouped.agg(groups=("groups", "first")).reset_index()
    subjects["correct"] = [_acc(part) for _, part in grouped]
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
        questions = frame[frame["run"] == run]
        questions = questions[questions["lead"]] if "lead" in questions else questions
        in_bank = len(questions) if scope is None else int((scope["run"] == run).sum())
        row[ASKED_ROW] = f"{int(_asked(questions).sum()):,} / {in_bank:,}"
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
    table = pd.DataFrame(rows)
    if any(str(run).startswith(PERFORMANCE_VARIANCE) for run in table.get("run", [])):
        table.attrs["caption"] = SPREAD_CAPTION
        table.attrs["caption_zh"] = SPREAD_CAPTION_ZH
    return table


SPREAD_CAPTION = (
    "Performance-Variance is labelled as in the Xiezhi paper, but holds, as the paper's row does, the population "
    "standard deviation of the runs' figures (not its square), in each metric's own unit (points for Hit@k)."
)
SPREAD_CAPTION_ZH = (
    "Performance-Variance 沿用 Xiezhi 论文的行名，但和论文一样给出的是各运行数值的总体标准差（不是方差），"
    "单位同各指标（Hit@k 为百分点）。"
)


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
