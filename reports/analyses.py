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
from collections import Counter
from collections.abc import Callable, Iterable

import pandas as pd

from kg.graph import KnowledgeGraph
from kg.records import Question
from reports.stats import mcnemar_exact, wilson_interval
from runners.records import MODE_INFO

NOT_NEGATION = [
    "同",
    "变",
    "如",
    "但",
    "仅",
    "断",
    "等式",
    "等号",
    "等关系",
    "久",
    "少",
    "过",
    "论",
    "管",
    "免",
    "禁",
    "料",
    "妨",
    "时",
    "止",
    "光",
    "只",
    "然",
    "至于",
    "外乎",
]
"""What follows 不 in words that negate nothing the question asks: 不同 (different), 不变 (unchanged),
不如 (not as good as: a comparison), 不但/不仅/不光/不只 (not only), 不断 (constantly), 不等式 (an
inequality), 不久, 不少, 不过, 不论, 不管, 不免, 不禁, 不料, 不妨, 不时, 不止, 不然, 不至于, 不外乎.
Chosen on the development half of the CMMLU test set in ../shared/data (#26 item 6)."""
NEGATION = re.compile(
    rf"不(?!{'|'.join(sorted(NOT_NEGATION, key=len, reverse=True))})|没有|并非|除外|例外|无关"
    r"|除了(?=\s*(?:下列|以下|哪|选项|$))"
)
"""Chinese negation cues (CMMLU's analysis), read in the question's own clause (:func:`question_clause`):
不 (不正确, 不属于, 不是, 不能, 不包括...), 没有, 并非, 除外, 例外 (例外的是), 无关 (与…无关的是) and the
EXCEPT form 除了 (除了下列哪项, 下列选项除了); not 除了X之外的 (the material). 错误 is no negation: "下列叙述
错误的是" asks for the false statement without negating anything, and 错误 is as often a noun of the material.
例外, 无关 and 除了 were added on the development half of CMMLU's subjects (#31 item 5)."""
NEGATION_EN = re.compile(r"\b(?:not|NOT|Not|except|EXCEPT|Except|incorrect|INCORRECT|false|FALSE|never|NEVER)\b")
"""English negation cues, anywhere in the stem."""
_QUOTED = re.compile(r"“[^“”]*”|「[^「」]*」|『[^『』]*』|《[^《》]*》|‘[^‘’]*’|\"[^\"\n]*\"")
_CLAUSE_END = re.compile(r"[。！？；，,;!?:：\n]")


def question_clause(stem: str) -> str:
    """The clause that asks: the stem's last clause once quoted text is removed.

    A negation in a quotation ("“不以规矩，不成方圆”，这里“规矩”的意思是") or in the material before
    the question ("若积中不含有x的一次项，则t为") is part of what is asked about, not of the asking.
    """
    clauses = [c for c in _CLAUSE_END.split(_QUOTED.sub(" ", stem)) if c.strip()]
    return clauses[-1] if clauses else ""


_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_NOT_AFTER = r"(?<![A-Za-z0-9.])"
_LABELS: dict[str, Callable[[int], str]] = {
    "circled": lambda i: re.escape(_CIRCLED[i]),
    "roman": lambda i: "ⅠⅡⅢⅣⅤⅥⅦⅧ"[i],
    "paren_digit": lambda i: rf"[(（]\s*{i + 1}\s*[)）]",
    "paren_letter": lambda i: rf"[(（]\s*{'abcdefgh'[i]}\s*[)）]",
    "paren_roman": lambda i: rf"[(（]\s*{('i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii')[i]}\s*[)）]",
    "digit": lambda i: rf"{_NOT_AFTER}{i + 1}\s*[.、．](?!\d)",
    # CMMLU's own form (high-school politics): "a有利于… b有利于…", "a: Fe＋O2；b: …", options "ad", "acd".
    "letter": lambda i: rf"{_NOT_AFTER}{'abcdefgh'[i]}(?:\s*[:：.、．]|(?=\s*[\u4e00-\u9fff]))",
}
"""Label families of sub-options: the ``i``-th label's pattern (①, Ⅰ, (1), (a), (i), 1., a)."""
_AT_LEAST = {"letter": 3}
"""Bare letters must list three statements (a, b, c): two are as often variables ("已知a是真分数，b是假分数",
"有的a是b"; one of the two two-letter matches of the development half)."""
_LABEL_REGEX = {family: [re.compile(make(i)) for i in range(8)] for family, make in _LABELS.items()}
_STATEMENT = re.compile(r"[\u4e00-\u9fff]")
_BARE = ("letter", "digit")
"""Families whose labels are also letters and numbers of the text: two Chinese characters of statement must
come between one label and the next; any text will do after ①, Ⅰ, (1), (a), (i)."""
_COMBINATIONS = (
    (re.compile(r"(?<![A-Za-z])a"), re.compile(r"[a-h](?:[、,，\s和与或]*[a-h])*")),
    (re.compile(r"①"), re.compile(r"[①-⑳](?:[、,，\s和与或]*[①-⑳])*")),
    (re.compile(r"[(（]\s*1\s*[)）]"), re.compile(r"[(（]\s*[1-9]\s*[)）](?:[、,，\s和与或]*[(（]\s*[1-9]\s*[)）])*")),
)
"""Options that are combinations of labelled statements ("acd", "①③", "（2）或（3）"), with the first label the
stem must hold."""


def listed_labels(text: str, family: str) -> int:
    """How many labels of ``family`` ``text`` lists in order (the 1st, the 2nd after it, ...), a statement between
    each and the next (bare letters and digits: two Chinese characters, so "a、b、c、d为原子序数…" and "A、a和B、b"
    list none)."""
    position, found = 0, 0
    for label in _LABEL_REGEX[family]:
        match = label.search(text, position)
        if match is None:
            break
        between = text[position : match.start()]
        if found and (len(_STATEMENT.findall(between)) < 2 if family in _BARE else not between.strip()):
            break
        found, position = found + 1, match.end()
    return found if found >= 2 else 0


def has_negation(text: str) -> bool:
    """Whether the question negates what it asks: a cue of :data:`NEGATION` in its own clause, or of
    :data:`NEGATION_EN` anywhere. On CMMLU's whole released test (``k12eval kg stats CMMLU/data/test``):
    1,134/11,582 = 9.8 % (9.3-10.3 %); the development half of its subjects (29), where the cues were
    chosen, 477/4,837 = 9.9 % (9.1-10.7 %), the confirmation half (38) 657/6,745 = 9.7 % (9.1-10.5 %)
    (the paper: about 10.7 %)."""
    return NEGATION.search(question_clause(text)) is not None or NEGATION_EN.search(text) is not None


def has_sub_options(question: Question) -> bool:
    """Whether the question lists sub-options, numbered statements the options choose among, as CMMLU writes
    them: two or more labels in order in the stem (①②, ⅠⅡ, (1)(2), (a)(b), 1. 2., and high-school politics'
    "a有利于… b有利于…"), or options that are combinations of labels ("ad", "acd", "①③") whose first label the
    stem holds. Chosen on the development half of CMMLU's subjects (29): 81/4,837 = 1.7 % (1.3-2.1 %); the
    confirmation half (38): 120/6,745 = 1.8 % (1.5-2.1 %); the whole test (``k12eval kg stats CMMLU/data/test``)
    201/11,582 = 1.7 % (1.5-2.0 %); all 58 of high-school politics' lettered questions. The
    paper's "about 10.8 %" cannot be a share of the released test: only 288 of its questions (2.5 %) hold any
    label-like mark at all (①, (1), 1., a., Ⅰ; tests/reports/test_cmmlu_analyses.py)."""
    if any(listed_labels(question.stem, family) >= _AT_LEAST.get(family, 2) for family in _LABELS):
        return True
    options = [o.text.strip() for o in question.options]
    for first, pattern in _COMBINATIONS:
        if (
            options
            and first.search(question.stem)
            and all(pattern.fullmatch(text) for text in options)
            and any(len(re.findall(r"[a-h①-⑳1-9]", text)) >= 2 for text in options)
        ):
            return True
    return False


FEATURES: dict[str, Callable[[Question], bool]] = {
    "negation": lambda q: has_negation(q.stem),
    "sub_options": has_sub_options,
}
"""CMMLU's two question features, by the name the analysis tables use."""
FEATURED = "_features"
"""Key of a question's ``extra`` naming the features it has, when its texts were dropped (:func:`reports.runs.slim`)."""


def feature_shares(questions: Iterable[Question]) -> dict[str, dict[str, float | int]]:
    """Per feature: how many of the questions have it (``n`` of ``of``), the share and its 95% Wilson interval."""
    hits: Counter[str] = Counter()
    total = 0
    for q in questions:
        total += 1
        hits.update(name for name, has in FEATURES.items() if has(q))
    return shares_of(hits, total)


def shares_of(hits: Counter[str], total: int) -> dict[str, dict[str, float | int]]:
    """:func:`feature_shares` from counts taken elsewhere: ``hits[feature]`` of ``total`` questions."""
    out: dict[str, dict[str, float | int]] = {}
    for name in FEATURES:
        n = hits[name]
        low, high = wilson_interval(n, total)
        out[name] = {"n": n, "of": total, "share": n / total if total else math.nan, "low": low, "high": high}
    return out


def text_features(graph: KnowledgeGraph) -> pd.DataFrame:
    """``question_id, negation, sub_options`` for every question of the graph (a question kept without its
    texts carries them, computed before: ``extra[FEATURED]``, :func:`reports.runs.slim`)."""
    columns: dict[str, list[object]] = {"question_id": list(graph.questions), **{name: [] for name in FEATURES}}
    for q in graph.questions.values():
        known = q.extra.get(FEATURED)
        for name, has in FEATURES.items():
            columns[name].append(name in known if known is not None else has(q))
    return pd.DataFrame(columns)


def split_accuracy(
    frame: pd.DataFrame, graph: KnowledgeGraph, feature: str, features: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per run: accuracy on questions with and without ``feature`` (``negation`` or ``sub_options``).

    ``n_with`` / ``n_without`` and the accuracies count what nodes.csv counts (``units``: a judgment question's
    statements under a per-statement rule); ``share_with`` is the share of the questions. ``features`` is
    :func:`text_features` of the graph, when the caller has it already.
    """
    features = text_features(graph) if features is None else features
    scored = frame[frame["scored"]].merge(features, on="question_id", how="left")
    rows = []
    for run, sub in scored.groupby("run", sort=False):
        row: dict[str, object] = {"run": run, "model": sub["model"].iloc[0], "mode": sub["mode"].iloc[0]}
        has = sub[feature].fillna(False).astype(bool)
        for label, part in (("with", sub[has]), ("without", sub[~has])):
            counted = "units" in part and part["units"].notna().all()
            right = int(part["units_right"].sum()) if counted else int(part["correct"].sum())
            n = int(part["units"].sum()) if counted else len(part)
            low, high = wilson_interval(right, n)
            row |= {f"n_{label}": n, f"acc_{label}": right / n if n else math.nan}
            row |= {f"acc_{label}_lo": low, f"acc_{label}_hi": high}
        row["share_with"] = float(has.mean()) if len(sub) else math.nan
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


def difficulty_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    """CMMLU's difficulty distribution: how many of the runs answer each question right.

    Over the questions every run scored (a question some run did not answer says nothing of its
    difficulty), one row per count ``runs_right`` = 0 ... N: how many questions exactly that many
    runs got right, and their share with its Wilson interval. Empty with fewer than two runs.
    """
    columns = ["runs_right", "runs", "questions", "share", "share_lo", "share_hi"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    scored = frame[frame["scored"]]
    runs = list(dict.fromkeys(scored["run"]))
    if len(runs) < 2:
        return pd.DataFrame(columns=columns)
    answered = scored.groupby("question_id")["run"].nunique()
    common = answered[answered == len(runs)].index
    right = scored[scored["question_id"].isin(common)].groupby("question_id")["correct"].sum().astype(int)
    total = len(right)
    rows = []
    for count in range(len(runs) + 1):
        n = int((right == count).sum())
        low, high = wilson_interval(n, total)
        rows.append(
            {
                "runs_right": count,
                "runs": len(runs),
                "questions": n,
                "share": n / total if total else math.nan,
                "share_lo": low,
                "share_hi": high,
            }
        )
    table = pd.DataFrame(rows, columns=columns)
    table.attrs["caption"] = f"{total} questions scored by all {len(runs)} runs: {', '.join(map(str, runs))}."
    table.attrs["caption_zh"] = f"{len(runs)} 个运行都评了分的题目共 {total} 道。"
    return table


def error_types(frame: pd.DataFrame) -> pd.DataFrame:
    """CK12's error categories per run: of its wrong generated answers, how many are illogical answers,
    problem-solving errors and gibberish outputs (:mod:`runners.errortypes`), with Wilson intervals."""
    from runners.errortypes import ERROR_TYPES

    columns = ["run", "model", "mode", "error_type", "n", "wrong", "share", "share_lo", "share_hi"]
    if frame.empty or "error_type" not in frame:
        return pd.DataFrame(columns=columns)
    typed = frame[frame["error_type"].notna()]
    rows = []
    for run, sub in typed.groupby("run", sort=False):
        wrong = len(sub)
        for kind in ERROR_TYPES:
            n = int((sub["error_type"] == kind).sum())
            low, high = wilson_interval(n, wrong)
            rows.append(
                {
                    "run": run,
                    "model": sub["model"].iloc[0],
                    "mode": sub["mode"].iloc[0],
                    "error_type": kind,
                    "n": n,
                    "wrong": wrong,
                    "share": n / wrong,
                    "share_lo": low,
                    "share_hi": high,
                }
            )
    table = pd.DataFrame(rows, columns=columns)
    table.attrs["caption"] = (
        "Wrong generated answers by CK12's categories: illogical (no answer of the kind asked), "
        "problem_solving (a wrong answer), gibberish (empty, looping or no text)."
    )
    table.attrs["caption_zh"] = (
        "模型生成的错误答案按 CK12 的分类计数：答非所问（没有给出所问类型的答案）、解题错误（给出了错误答案）、"
        "乱码（空白、反复重复或没有文字）。"
    )
    return table
