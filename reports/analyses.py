"""The analyses the papers ran: negation words, sub-options, variants and CoT on the same questions.

Split analyses (negation, sub-options) compare accuracy on two sets of
questions within each run. Paired analyses (variants, CoT) join two runs of the
same model on question id and count the four right/wrong combinations; the
exact McNemar test says whether the discordant pairs lean one way by more than
chance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import pandas as pd

from kg.graph import KnowledgeGraph
from kg.records import Question
from reports.stats import mcnemar_exact, wilson_interval
from runners.records import MODE_INFO

NEGATION = re.compile(
    r"不(?!等式|等号|等关系|断)|没有|错误|并非|除外|以外|"  # 不 but not 不等式 (inequality), 不断 (constantly)
    r"\b(?:not|NOT|Not|except|EXCEPT|Except|incorrect|INCORRECT|false|FALSE|never|NEVER)\b"
)
"""Negation cues (CMMLU's analysis): 不 (不正确, 不属于, 不是...), 没有, 错误, not, except...

不 inside 不等式 / 不等号 / 不等关系 (inequality) and 不断 (constantly) is no negation.
"""

SUB_OPTIONS = re.compile(
    r"[①-⑳]|[(（]\s*(?:[a-hA-H]|[1-9]|i{1,3}|iv|v)\s*[)）]|(?:^|(?<=[\s，。；;:：]))[a-h][.、．](?![a-z.])", re.M
)
"""Numbered statements inside a question: ①②③, (1)(2), (a)(b), a. b. c."""


def has_negation(text: str) -> bool:
    """Whether the text holds a negation cue (see :data:`NEGATION`)."""
    return NEGATION.search(text) is not None


def has_sub_options(question: Question) -> bool:
    """Whether the stem or the options list two or more numbered statements."""
    text = question.stem + "\n" + "\n".join(o.text for o in question.options)
    return len({m.group(0).strip("()（） .、．") for m in SUB_OPTIONS.finditer(text)}) >= 2


def text_features(graph: KnowledgeGraph) -> pd.DataFrame:
    """``question_id, negation, sub_options`` for every question of the graph."""
    rows = [
        {"question_id": qid, "negation": has_negation(q.stem), "sub_options": has_sub_options(q)}
        for qid, q in graph.questions.items()
    ]
    return pd.DataFrame(rows, columns=["question_id", "negation", "sub_options"])


def split_accuracy(
    frame: pd.DataFrame, graph: KnowledgeGraph, feature: str, features: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per run: accuracy on questions with and without ``feature`` (``negation`` or ``sub_options``).

    ``features`` is :func:`text_features` of the graph, when the caller has it already.
    """
    features = text_features(graph) if features is None else features
    scored = frame[frame["scored"]].merge(features, on="question_id", how="left")
    rows = []
    for run, sub in scored.groupby("run", sort=False):
        row: dict[str, object] = {"run": run, "model": sub["model"].iloc[0], "mode": sub["mode"].iloc[0]}
        for label, part in (("with", sub[sub[feature].fillna(False)]), ("without", sub[~sub[feature].fillna(False)])):
            right, n = int(part["correct"].sum()), len(part)
            low, high = wilson_interval(right, n)
            row |= {f"n_{label}": n, f"acc_{label}": right / n if n else math.nan}
            row |= {f"acc_{label}_lo": low, f"acc_{label}_hi": high}
        row["share_with"] = row["n_with"] / len(sub) if len(sub) else math.nan  # type: ignore[operator]
        row["difference"] = row["acc_with"] - row["acc_without"]  # type: ignore[operator]
        rows.append(row)
    return pd.DataFrame(rows)


def paired(frame: pd.DataFrame, run_a: str, run_b: str) -> dict[str, object]:
    """Compare two runs on the questions both scored: the 2x2 counts, accuracies and McNemar p-value."""
    a = frame[(frame["run"] == run_a) & frame["scored"]].set_index("question_id")["correct"]
    b = frame[(frame["run"] == run_b) & frame["scored"]].set_index("question_id")["correct"]
    common = a.index.intersection(b.index)
    a, b = a.loc[common].astype(bool), b.loc[common].astype(bool)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    n = len(common)
    return {
        "run_a": run_a,
        "run_b": run_b,
        "n_pairs": n,
        "acc_a": float(a.mean()) if n else math.nan,
        "acc_b": float(b.mean()) if n else math.nan,
        "difference": float(b.mean() - a.mean()) if n else math.nan,
        "both_right": int((a & b).sum()),
        "only_a_right": only_a,
        "only_b_right": only_b,
        "both_wrong": int((~a & ~b).sum()),
        "mcnemar_p": mcnemar_exact(only_a, only_b),
    }


def _runs(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.groupby("run", sort=False)[["model", "mode", "variant"]].first().reset_index()


def variant_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """Original vs shuffled vs distractors: each variant run against the original run of the same model and mode."""
    runs = _runs(frame)
    rows = []
    for (model, mode), sub in runs.groupby(["model", "mode"], sort=False):
        originals = sub[sub["variant"] == "original"]["run"].tolist()
        if not originals:
            continue
        for run, variant in zip(sub["run"], sub["variant"], strict=True):
            if variant != "original":
                rows.append({"model": model, "mode": mode, "variant": variant} | paired(frame, originals[0], run))
    return pd.DataFrame(rows)


COT_PAIRS = tuple((m.without_cot, m.name) for m in MODE_INFO.values() if m.cot)
"""(plain mode, its CoT mode), from the modes' records."""


def cot_pairs(frame: pd.DataFrame, pairs: Iterable[tuple[str, str]] = COT_PAIRS) -> pd.DataFrame:
    """CoT vs no CoT on the same questions: each CoT run against the plain run of the same model and variant."""
    runs = _runs(frame)
    rows = []
    for (model, variant), sub in runs.groupby(["model", "variant"], sort=False):
        by_mode = dict(zip(sub["mode"], sub["run"], strict=False))
        for plain, cot in pairs:
            if plain in by_mode and cot in by_mode:
                pair = paired(frame, by_mode[plain], by_mode[cot])
                rows.append({"model": model, "variant": variant, "without": plain, "with": cot} | pair)
    return pd.DataFrame(rows)
