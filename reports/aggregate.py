"""Per-knowledge-point aggregates of one or more runs, as tidy pandas tables.

Two tables carry everything the report shows:

* :func:`question_frame`: one row per run x answered question, with the
  question's coordinates (node ids, stage, type, difficulty, group), whether it
  was right, how it was parsed, the gold option's rank and every step score;
* :func:`node_table`: one row per run x slice x node (the whole run, every
  subject, level-1 and level-2 point), with counts, micro accuracy and its 95%
  Wilson interval, the macro accuracy, the unparsed rate, rank metrics and the
  mean / spread of each step score.

Counting rules. A record with ``parse_status == "skipped"`` (e.g. cloze, which
CK12 does not score) counts nowhere. An ``unparsed`` or ``failed`` record the
runner left unscored counts as a wrong answer: a model that gives no readable
answer did not answer right. ``micro`` accuracy is right answers over scored
questions under the node; ``macro`` accuracy is the unweighted mean of the
micro accuracies of the node's children that have any scored question
(subject: its level-1 points; level-1: its level-2 points; the whole run: its
subjects, as CMMLU averages categories). A level-2 point's children are single
questions, so its macro accuracy equals its micro accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from kg.graph import KnowledgeGraph, node_ids, subject_id
from kg.records import Question, QuestionType, subject_group
from reports.runs import Run
from reports.stats import rank_of_gold, wilson_interval
from runners.errortypes import error_type

SLICES = ("stage", "type", "difficulty", "group")
"""Question attributes every node is also aggregated by (``group`` is arts / science for CK12)."""

RUN_COLUMNS = ("run", "model", "mode", "variant", "strategy")
LEVELS = (("subject", "subject_id"), ("level1", "level1_id"), ("level2", "level2_id"))
ROOT = "all"
"""Node id and kind of the row that aggregates a whole run."""
SCORE_PREFIX = "score:"
"""Question-frame columns holding step scores are named ``score:<metric>``."""


def question_frame(runs: Iterable[Run], graph: KnowledgeGraph) -> pd.DataFrame:
    """One row per run x answered question: coordinates, correctness, parse status, rank, step scores."""
    rows: list[dict[str, object]] = []
    for run in runs:
        header = run.header
        for record in run.records:
            question = graph.questions[record.question_id]
            ids = node_ids(question)
            skipped = record.parse_status == "skipped"
            unparsed = record.parse_status in ("unparsed", "failed")
            if skipped:
                correct = math.nan
            elif record.correct is not None:
                correct = float(record.correct)
            else:
                correct = 0.0 if unparsed else math.nan
            rank, n_options = _rank(record.option_scores, record.gold, record.gold_rank)
            row: dict[str, object] = {
                "run": run.id,
                "model": header.model,
                "mode": header.mode,
                "variant": header.variant,
                "strategy": header.strategy,
                "question_id": record.question_id,
                "subject_id": ids["subject"],
                "level1_id": ids["level1"],
                "level2_id": ids["level2"],
                "subject": question.subject,
                "level1": question.knowledge.level1,
                "level2": question.knowledge.level2,
                "stage": question.stage.value if question.stage else None,
                "type": question.type.value,
                "difficulty": question.difficulty,
                "group": question.group or subject_group(question.subject),
                # Every category of the subject (CMMLU: 古汉语 is Social Science and China specific).
                "groups": _groups(question),
                "status": record.parse_status,
                "scored": not math.isnan(correct),
                "correct": correct,
                "unparsed": record.parse_status == "unparsed",
                "failed": record.parse_status == "failed",
                "answered": not skipped,
                "partial": record.partial,
                # CK12's category of a wrong answer; computed here for records written before the field.
                "error_type": record.error_type
                or error_type(record.output, record.parse_status, record.correct, record.finish_reason),
                # Judgment statements, for the released scorer's per-statement accuracy (reports.tables).
                "statements": len(question.answer) if question.type is QuestionType.JUDGMENT else math.nan,
                "rank": rank,
                "n_options": n_options,
            }
            scores = run.scores.get(record.question_id)
            if scores is not None:
                for metric, value in scores.scores.items():
                    row[SCORE_PREFIX + metric] = value
            rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    for column in ("partial", "rank", "n_options", *score_columns(frame)):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    return frame


def statement_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each scored judgment question as one row per statement, as CK12's released scorer counts.

    A question of ``k`` statements with ``partial`` share right becomes ``k`` rows, ``round(partial * k)``
    of them right (an unparsed answer's statements all wrong); other rows are kept as they are. Every
    count and accuracy over the result (:func:`node_table`, the tables) then counts statements.
    """
    if frame.empty or "statements" not in frame:
        return frame
    judged = (frame["type"] == QuestionType.JUDGMENT.value) & frame["scored"] & frame["statements"].notna()
    if not judged.any():
        return frame
    parts = [frame[~judged]]
    rows = frame[judged]
    counts = rows["statements"].astype(int)
    share = rows["partial"].fillna(rows["correct"]).clip(0, 1)
    right = (share * counts).round().astype(int)
    exploded = rows.loc[rows.index.repeat(counts)].copy()
    position = exploded.groupby(level=0).cumcount()
    exploded["correct"] = (position < right.loc[exploded.index]).astype(float).to_numpy()
    exploded["partial"] = exploded["correct"]
    exploded["statements"] = 1.0
    parts.append(exploded)
    return pd.concat(parts).sort_index(kind="stable").reset_index(drop=True)


def _rank(
    option_scores: dict[str, float] | None, gold: list[str] | list[bool], gold_rank: int | None
) -> tuple[float, float]:
    n_options = float(len(option_scores)) if option_scores else math.nan
    if gold_rank is not None:
        return float(gold_rank), n_options
    if option_scores and len(gold) == 1 and isinstance(gold[0], str):
        rank = rank_of_gold(option_scores, gold[0])
        if rank is not None:
            return float(rank), n_options
    return math.nan, n_options


def score_columns(frame: pd.DataFrame) -> list[str]:
    """The ``score:<metric>`` columns of a question frame, in order."""
    return [c for c in frame.columns if str(c).startswith(SCORE_PREFIX)]


def node_table(frame: pd.DataFrame, graph: KnowledgeGraph, k: int = 4, slices: Iterable[str] = SLICES) -> pd.DataFrame:
    """One row per run x slice x node; see the module docstring for the counting rules.

    The ``all`` slice lists every subject / level-1 / level-2 node of the graph for
    every run, with ``n == 0`` where the run scored nothing under it. Other slices
    (``slice`` = stage, type, difficulty, group; ``slice_value`` its value) list the
    nodes that have answered questions in that slice.
    """
    if frame.empty:
        return pd.DataFrame()
    metrics = score_columns(frame)
    derived = _derived(frame, k, metrics)
    runs = list(dict.fromkeys(frame["run"]))
    parts: list[pd.DataFrame] = []
    for dim in ("all", *slices):
        for kind, column in ((ROOT, None), *LEVELS):
            keys = ["run"] + ([dim] if dim != "all" else []) + ([column] if column else [])
            stats = _group_stats(derived, keys, k, metrics)
            if dim == "all":
                nodes = [ROOT] if column is None else graph.nodes_of_kind(kind)
                full = pd.MultiIndex.from_product([runs, nodes], names=["run", "node"])
                stats.index = pd.MultiIndex.from_arrays(
                    [
                        stats.index.get_level_values(0),
                        stats.index.get_level_values(-1) if column else [ROOT] * len(stats),
                    ],
                    names=["run", "node"],
                )
                stats = stats.reindex(full)
                stats[COUNTS] = stats[COUNTS].fillna(0)
                stats = stats.reset_index()
                stats.insert(1, "slice_value", "")
            else:
                stats = stats.reset_index()
                stats = stats.rename(columns={dim: "slice_value", **({column: "node"} if column else {})})
                if column is None:
                    stats.insert(2, "node", ROOT)
                stats["slice_value"] = stats["slice_value"].astype(str)
            stats.insert(1, "slice", dim)
            stats.insert(3, "kind", kind)
            parts.append(stats)
    table = pd.concat(parts, ignore_index=True)
    _add_names(table, graph)
    _add_intervals(table)
    _add_macro(table)
    for column in (*COUNTS, "questions", *[f"{m[len(SCORE_PREFIX) :]}:n" for m in metrics]):
        table[column] = table[column].fillna(0).astype(int)
    meta = frame.groupby("run", sort=False)[list(RUN_COLUMNS[1:])].first()
    table = table.join(meta, on="run")
    return table[[*RUN_COLUMNS, "slice", "slice_value", *_column_order(table, k, metrics)]]


COUNTS = ["records", "n", "correct", "unparsed", "failed", "n_ranked"]
"""Columns that are sums over questions (0 for an empty node, never NaN)."""


def _derived(frame: pd.DataFrame, k: int, metrics: list[str]) -> pd.DataFrame:
    """Per answered question: the numbers to sum or average, plus the keys to group by."""
    answered = frame[frame["answered"]]
    rank = answered["rank"]
    return pd.DataFrame(
        {
            "run": answered["run"],
            **{dim: answered[dim] for dim in SLICES},
            **{column: answered[column] for _, column in LEVELS},
            "records": 1,
            "n": answered["scored"].astype(int),
            "correct": answered["correct"].fillna(0.0),
            "unparsed": answered["unparsed"].astype(int),
            "failed": answered["failed"].astype(int),
            "partial": answered["partial"],
            "n_ranked": rank.notna().astype(int),
            "mrr": 1.0 / rank,
            "hit@1": (rank <= 1).where(rank.notna()).astype(float),
            f"hit@{k}": (rank <= k).where(rank.notna()).astype(float),
            "mean_rank": rank,
            "mean_rank_norm": rank / answered["n_options"],
            **{m: answered[m] for m in metrics},
        },
        index=answered.index,
    )


def _group_stats(derived: pd.DataFrame, keys: list[str], k: int, metrics: list[str]) -> pd.DataFrame:
    grouped = derived.groupby(keys, sort=False, dropna=True)
    means = ["partial", "mrr", "hit@1", f"hit@{k}", "mean_rank", "mean_rank_norm"]
    parts = [grouped[COUNTS].sum(), grouped[means].mean()]
    if metrics:
        spread = grouped[metrics].agg(["mean", "std", "count"])
        spread.columns = [f"{m[len(SCORE_PREFIX) :]}:{'n' if s == 'count' else s}" for m, s in spread.columns]
        parts.append(spread)
    return pd.concat(parts, axis=1)


def _add_names(table: pd.DataFrame, graph: KnowledgeGraph) -> None:
    """Name, parent, subject, group and question count of each node, looked up once per node."""
    nodes = graph.graph.nodes
    counts: dict[str, int] = {ROOT: len(graph)}
    for question in graph.questions.values():
        for node in node_ids(question).values():
            counts[node] = counts.get(node, 0) + 1
    info: dict[str, tuple[str, str, str, str]] = {ROOT: (ROOT, "", "", "")}
    for node in table["node"].unique():
        if node == ROOT or node not in nodes:
            continue
        data = nodes[node]
        subject = data["name"] if data["kind"] == "subject" else str(data.get("subject", ""))
        group = str(nodes[subject_id(subject)].get("group") or "") or subject_group(subject) or ""
        parent = next(iter(graph.graph.predecessors(node)), "")
        info[node] = (str(data["name"]), parent, subject, group)
    rows = [info.get(n, (n, "", "", "")) for n in table["node"]]
    table["name"], table["parent"], table["subject"], table["group"] = (list(col) for col in zip(*rows, strict=True))
    table["questions"] = [counts.get(n, 0) for n in table["node"]]


def _add_intervals(table: pd.DataFrame) -> None:
    n = table["n"].astype(int)
    correct = table["correct"].round().astype(int)
    table["acc_micro"] = np.where(n > 0, correct / n.where(n > 0, 1), np.nan)
    bounds = [wilson_interval(c, m) for c, m in zip(correct, n, strict=True)]
    table["acc_micro_lo"] = [b[0] for b in bounds]
    table["acc_micro_hi"] = [b[1] for b in bounds]
    answered = (table["records"]).astype(float)
    table["unparsed_rate"] = np.where(answered > 0, table["unparsed"] / answered.where(answered > 0, 1), np.nan)


def _add_macro(table: pd.DataFrame) -> None:
    """Macro accuracy: mean of the children's micro accuracies, children without scored questions left out."""
    keys = ["run", "slice", "slice_value"]
    parent = table["parent"].where(table["kind"] != "subject", ROOT)
    children = table.assign(parent=parent).groupby([*keys, "parent"])["acc_micro"].agg(["mean", "count"])
    index = pd.MultiIndex.from_frame(table[[*keys, "node"]])
    table["acc_macro"] = children["mean"].reindex(index).to_numpy()
    table["macro_children"] = children["count"].reindex(index).fillna(0).astype(int).to_numpy()
    level2 = table["kind"] == "level2"
    table.loc[level2, "acc_macro"] = table.loc[level2, "acc_micro"]
    table.loc[level2, "macro_children"] = table.loc[level2, "n"]


def _column_order(table: pd.DataFrame, k: int, metrics: list[str]) -> list[str]:
    head = [
        "kind", "node", "parent", "name", "subject", "group", "questions", "records", "n", "correct",
        "acc_micro", "acc_micro_lo", "acc_micro_hi", "acc_macro", "macro_children",
        "unparsed", "failed", "unparsed_rate", "partial",
        "n_ranked", "mrr", "hit@1", f"hit@{k}", "mean_rank", "mean_rank_norm",
    ]  # fmt: skip
    tail = [f"{m[len(SCORE_PREFIX) :]}:{s}" for m in metrics for s in ("mean", "std", "n")]
    return head + tail


def weakest_points(nodes: pd.DataFrame, top: int = 10, min_n: int = 1) -> pd.DataFrame:
    """The level-2 points with the lowest accuracy, per run, ranked by the UPPER end of the Wilson interval.

    Ranking by the upper bound means a point is called weak only when even the
    most favourable reading of its questions is poor: one wrong answer out of one
    (upper bound 0.79) ranks after nine wrong out of ten (upper bound 0.40).
    Ties are broken by lower accuracy, then by more questions.
    """
    if nodes.empty:
        return nodes
    level2 = nodes[(nodes["slice"] == "all") & (nodes["kind"] == "level2") & (nodes["n"] >= max(1, min_n))]
    ordered = level2.sort_values(["run", "acc_micro_hi", "acc_micro", "n"], ascending=[True, True, True, False])
    return ordered.groupby("run", sort=False).head(top).reset_index(drop=True)


def _groups(question: Question) -> tuple[str, ...]:
    """All the categories a question's subject sits in; its ``group`` alone when the source names no others."""
    listed = question.extra.get("categories")
    if isinstance(listed, list) and listed and all(isinstance(c, str) for c in listed):
        return tuple(listed)
    group = question.group or subject_group(question.subject)
    return (group,) if group else ()
