"""Per-knowledge-point aggregates of one or more runs, as tidy pandas tables.

Two tables carry everything the report shows:

* :func:`question_frame`: one row per run x answered question, with the
  question's coordinates (node ids, stage, type, difficulty, group), whether it
  was right, how it was parsed, the gold option's rank and every step score;
* :func:`node_table`: one row per run x slice x node (the whole run, every
  subject, level-1 and level-2 point), with counts, micro accuracy and its 95%
  Wilson interval, the macro accuracy, the unparsed rate, rank metrics and the
  mean / spread of each step score.

Counting rules (:mod:`runners.counting`, the rule ``run``'s summary follows too). Accuracy is over
the questions *asked*: an ``unparsed`` answer is asked and wrong (a model that gives no readable
answer did not answer right); a ``failed`` record (no answer: a failed request, or a replayed
file without the question) and a ``skipped`` one (cloze, which CK12 does not score) are not
asked and count nowhere, nor do the questions of the run's bank with no record. A judgment
question counts its statements under a per-statement judgment rule (:func:`statement_rows`).
Every node also says how many questions were asked of how many the runs' banks hold under it
(``asked`` / ``in_bank``; :func:`scope_frame`). ``micro`` accuracy is right answers over scored
units under the node; ``macro`` accuracy is the unweighted mean of the
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

from kg.graph import KnowledgeGraph, node_ids, place_ids, place_names, placements, subject_id
from kg.records import Question, QuestionType, subject_group
from reports.runs import Run
from reports.stats import rank_of_gold, wilson_interval
from runners.counting import DEFAULT_JUDGMENT_RULE, JUDGMENT_RULES, Counted, JudgmentRule, asked, units

SLICES = ("stage", "type", "difficulty", "group")
"""Question attributes every node is also aggregated by (``group`` is arts / science for CK12)."""

RUN_COLUMNS = ("run", "model", "mode", "variant", "strategy")
LEVELS = (("subject", "subject_id"), ("level1", "level1_id"), ("level2", "level2_id"))
ROOT = "all"
"""Node id and kind of the row that aggregates a whole run."""
FURTHER = "further_places"
"""Question-frame column: a question's places beyond its own (:func:`_further`), ``None`` for most."""
SCORE_PREFIX = "score:"
"""Question-frame columns holding step scores are named ``score:<metric>``."""


def question_frame(
    runs: Iterable[Run], graph: KnowledgeGraph, judgment: JudgmentRule = DEFAULT_JUDGMENT_RULE
) -> pd.DataFrame:
    """One row per run x answered question: coordinates, correctness, parse status, rank, step scores.

    ``units`` / ``units_right`` are what the question counts under ``judgment`` (:func:`runners.counting.units`);
    a judgment question also has ``statements_right:<rule>`` / ``statements_counted:<rule>`` for every rule.
    Built one column at a time, numbers straight into arrays and repeated names shared: a million rows cost
    their cells and one column's worth more, not a dict per row."""
    runs = list(runs)
    owners = [run for run in runs for _ in run.records]
    records = [record for run in runs for record in run.records]
    questions = [graph.questions[record.question_id] for record in records]
    if not records:
        return pd.DataFrame()
    places: dict[tuple[str, str, str], dict[str, str]] = {}
    further: Further = {}
    ids = []
    for q in questions:
        where = (q.subject, q.knowledge.level1, q.knowledge.level2)
        ids.append(places.get(where) or places.setdefault(where, node_ids(q)))
    counted = [units(record, judgment) for record in records]
    is_asked = np.fromiter((asked(r) for r in records), bool, len(records))
    ranks = [_rank(r.option_scores, r.gold, r.gold_rank) for r in records]
    judged = [q.type is QuestionType.JUDGMENT for q in questions]
    header = [run.header for run in owners]

    def numbers(values: Iterable[float | None]) -> np.ndarray:
        return np.fromiter((math.nan if v is None else v for v in values), float, len(records))

    columns: dict[str, object] = {
        "run": [run.id for run in owners],
        "model": [h.model for h in header],
        "mode": [h.mode for h in header],
        "variant": [h.variant for h in header],
        "strategy": [h.strategy for h in header],
        "question_id": [r.question_id for r in records],
        "subject_id": [i["subject"] for i in ids],
        "level1_id": [i["level1"] for i in ids],
        "level2_id": [i["level2"] for i in ids],
        "subject": [q.subject for q in questions],
        "level1": [q.knowledge.level1 for q in questions],
        "level2": [q.knowledge.level2 for q in questions],
        FURTHER: [_further(q, further) for q in questions],
        "stage": [q.stage.value if q.stage else None for q in questions],
        "type": [q.type.value for q in questions],
        "difficulty": [q.difficulty for q in questions],
        "group": [q.group or subject_group(q.subject) for q in questions],
        # Every category of the subject (CMMLU: 古汉语 is Social Science and China specific).
        "groups": [_GROUPS.setdefault(g, g) for g in map(_groups, questions)],
        "status": [r.parse_status for r in records],
        "scored": is_asked.copy(),
        "correct": np.where(is_asked, numbers(float(bool(r.correct)) for r in records), math.nan),
        "unparsed": np.fromiter((r.parse_status == "unparsed" for r in records), bool, len(records)),
        "failed": np.fromiter((r.parse_status == "failed" for r in records), bool, len(records)),
        "answered": np.fromiter((r.parse_status != "skipped" for r in records), bool, len(records)),
        "asked": is_asked,
        "partial": numbers(r.partial for r in records),
        # CK12's category of a wrong answer; computed here for records written before the field.
        "error_type": [r.error_type for r in records],  # computed when read (reports.runs.Answered.of)
        "statements": numbers(len(q.answer) if j else None for q, j in zip(questions, judged, strict=True)),
        "judgment_rule": [judgment] * len(records),
        "units": numbers(c.counted if c else None for c in counted),
        "units_right": numbers(c.right if c else None for c in counted),
        "rank": numbers(rank for rank, _ in ranks),
        "n_options": numbers(n for _, n in ranks),
    }
    # The columns not every row has, in the order a row first has them: a judgment question's counts under
    # every rule, then each step score.
    extra: list[tuple[int, int, str]] = []
    first = next((i for i, j in enumerate(judged) if j), None)
    if first is not None:
        rules = [
            (rule, [units(r, rule) if j else None for r, j in zip(records, judged, strict=True)])
            for rule in JUDGMENT_RULES
        ]
        for rule, per_rule in rules:
            columns[f"statements_right:{rule}"] = numbers(c.right if c else None for c in per_rule)
            columns[f"statements_counted:{rule}"] = numbers(c.counted if c else None for c in per_rule)
        extra += [
            (first, -1, name)
            for rule, _ in rules
            for name in (f"statements_right:{rule}", f"statements_counted:{rule}")
        ]
    scores = [run.scores.get(r.question_id) for run, r in zip(owners, records, strict=True)]
    metrics: dict[str, int] = {}
    for row, scored in enumerate(scores):
        for metric in scored.scores if scored is not None else ():
            metrics.setdefault(metric, row)
    for position, (metric, row) in enumerate(metrics.items()):
        columns[SCORE_PREFIX + metric] = numbers(s.scores.get(metric) if s is not None else None for s in scores)
        extra.append((row, position, SCORE_PREFIX + metric))
    fixed = [name for name in columns if name not in {name for *_, name in extra}]
    order = fixed + [name for *_, name in sorted(extra, key=lambda item: (item[0], item[1]))]
    return pd.DataFrame({name: columns[name] for name in order})


_GROUPS: dict[tuple[str, ...], tuple[str, ...]] = {}
"""One tuple per set of categories, shared by the rows that have it."""


def _judgment_counts(record: Counted) -> dict[str, object]:
    """What a judgment answer counts under every rule: ``statements_right:<rule>``, ``statements_counted:<rule>``."""
    out: dict[str, object] = {}
    for rule in JUDGMENT_RULES:
        counted = units(record, rule)
        out[f"statements_right:{rule}"] = counted.right if counted else math.nan
        out[f"statements_counted:{rule}"] = counted.counted if counted else math.nan
    return out


def statement_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each asked question as one row per unit it counts (``units``, :mod:`runners.counting`).

    A judgment question of ``k`` units under a per-statement rule becomes ``k`` rows, ``units_right`` of them
    right; one the rule counts nothing for (the released scorer found no verdict) stays one row, not scored;
    other rows are kept as they are. ``lead`` marks each question's first row, so questions can still be
    counted. Every count and accuracy over the result (:func:`node_table`, the tables) then counts units.
    """
    if frame.empty:
        return frame
    single = frame["scored"] & (frame["units"] == 1) if "units" in frame else None
    spread = frame["scored"] & frame["units"].notna() & (frame["units"] != 1) if "units" in frame else None
    if (
        single is None
        or spread is None
        or not (spread.any() or (frame["correct"] != frame["units_right"])[single].any())
    ):
        shared = frame.copy(deep=False)  # nothing to change: the columns are shared, not copied (a million rows)
        shared["lead"] = True
        return shared
    # One copy, in order: each row repeated as many times as it counts units (a unit-less one kept once).
    spread_at = spread.to_numpy()
    counts = frame["units"].to_numpy()
    repeats = np.ones(len(frame), dtype=np.int64)
    repeats[spread_at] = np.maximum(counts[spread_at], 1).astype(np.int64)
    source = np.repeat(np.arange(len(frame)), repeats)
    out = frame.take(source).reset_index(drop=True)
    position = np.arange(len(out)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    spread_rows = spread_at[source]
    empty = spread_rows & (counts[source] == 0)  # the rule counted nothing (the released scorer found no verdict)
    unit = spread_rows & ~empty
    right = out["units_right"].to_numpy()
    correct = out["correct"].to_numpy(copy=True)
    one = single.to_numpy()[source]
    # One unit: right as the rule counts it (a one-statement judgment under ck12-release: the release's verdict).
    correct[one] = right[one]
    correct[unit] = (position[unit] < right[unit]).astype(float)
    correct[empty] = math.nan
    scored = out["scored"].to_numpy(copy=True)
    scored[empty] = False
    changed = {"scored": scored, "correct": correct, "lead": position == 0}
    for column, value in (("partial", None), ("statements", 1.0), ("units", 1.0), ("units_right", None)):
        cells = out[column].to_numpy(dtype=float, copy=True)
        cells[unit] = correct[unit] if value is None else value
        changed[column] = cells
    for column, cells in changed.items():
        out[column] = cells
    return out


UNCOUNTED = ("question_id", "level2", "groups", "status", "error_type")
"""Columns of a question frame that neither :func:`node_table` nor CK12 Tables 1 and 3 read of its
:func:`statement_rows`."""
UNCOUNTED_PREFIXES = ("statements_right:", "statements_counted:")
"""Prefixes of the question frame's other columns they do not read."""


def counted_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`statement_rows` of ``frame`` without the :data:`UNCOUNTED` columns (and prefixes): what the node table and the
    accuracy tables count, a million rows copied without the ids and texts they never read."""
    dropped = [c for c in frame.columns if str(c) in UNCOUNTED or str(c).startswith(UNCOUNTED_PREFIXES)]
    return statement_rows(frame.drop(columns=dropped))


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


SCOPE_COLUMNS = (
    "run", "model", "mode", "variant", "question_id", "subject_id", "level1_id", "level2_id",
    "subject", "level1", "level2", FURTHER, "stage", "type", "difficulty", "group",
)  # fmt: skip
"""Columns of :func:`scope_frame`."""


def scope_frame(
    runs: Iterable[Run], graph: KnowledgeGraph | None = None, frame: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per run x question of the run's bank in the run's scope (:attr:`reports.runs.Run.scope`), asked
    or not: what ``in_bank`` counts beside ``asked``.

    Given the runs' question frame ``frame`` (:func:`question_frame` over ``graph``) when every run answered
    exactly the questions of its scope (the common case), ``frame``'s columns: the same rows, in the order
    answered (what counts them does not read the order), not a second frame of a million rows."""
    runs = list(runs)
    if frame is not None and graph is not None and len(frame) and all(_scope_answered(run, graph) for run in runs):
        return frame[list(SCOPE_COLUMNS)]
    rows = []
    further: Further = {}
    for run in runs:
        header = run.header
        for q in run.scope or run.questions.values():
            ids = node_ids(q)
            rows.append(
                (
                    run.id, header.model, header.mode, header.variant, q.id, ids["subject"], ids["level1"],
                    ids["level2"], q.subject, q.knowledge.level1, q.knowledge.level2, _further(q, further),
                    q.stage.value if q.stage else None, q.type.value, q.difficulty,
                    q.group or subject_group(q.subject),
                )
            )  # fmt: skip
    return pd.DataFrame(rows, columns=list(SCOPE_COLUMNS))


def _scope_answered(run: Run, graph: KnowledgeGraph) -> bool:
    """Whether ``run``'s scope is the questions it answered, each once, as ``graph`` holds them (the objects a
    question frame's rows are made from)."""
    scope = run.scope or list(run.questions.values())
    held = {id(q) for q in scope}
    answered = {id(graph.questions.get(record.question_id)) for record in run.records}
    return len(scope) == len(run.records) == len(held) and held == answered


def node_table(
    frame: pd.DataFrame,
    graph: KnowledgeGraph,
    k: int = 4,
    slices: Iterable[str] = SLICES,
    scope: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """One row per run x slice x node; see the module docstring for the counting rules.

    ``frame`` is a question frame, or its :func:`statement_rows` (it is spread into them when it is not).
    The ``all`` slice lists every subject / level-1 / level-2 node of the graph and of ``scope``
    (:func:`scope_frame`) for every run, with ``n == 0`` and no accuracy where the run asked nothing under
    it. Other slices (``slice`` = stage, type, difficulty, group; ``slice_value`` its value) list the
    nodes that have answered questions in that slice. ``in_bank`` counts ``scope``'s questions under each
    node (without ``scope``, the questions with a record).
    """
    if frame.empty:
        return pd.DataFrame()
    if "lead" not in frame:
        frame = statement_rows(frame)
    if scope is None:
        scope = frame[frame["lead"]]
    metrics = score_columns(frame)
    derived = _derived(frame, k, metrics)
    # A question at two places (a Xiezhi question labelled in two 门类) counts under each; the whole run, once.
    placed, placed_scope = _at_every_place(derived), _at_every_place(scope)
    runs = list(dict.fromkeys(frame["run"]))
    parts: list[pd.DataFrame] = []
    for dim in ("all", *slices):
        for kind, column in ((ROOT, None), *LEVELS):
            keys = ["run"] + ([dim] if dim != "all" else []) + ([column] if column else [])
            stats = _group_stats(placed if column else derived, keys, k, metrics)
            in_bank = placed_scope.groupby(keys, sort=False, dropna=True).size() if column else None
            if dim == "all":
                nodes = [ROOT] if column is None else _nodes_of(graph, kind, scope[column])
                full = pd.MultiIndex.from_product([runs, nodes], names=["run", "node"])
                stats.index = pd.MultiIndex.from_arrays(
                    [
                        stats.index.get_level_values(0),
                        stats.index.get_level_values(-1) if column else [ROOT] * len(stats),
                    ],
                    names=["run", "node"],
                )
                stats = stats.reindex(full)
                if in_bank is not None:
                    in_bank.index.names = ["run", "node"]
                    stats["in_bank"] = in_bank.reindex(full).to_numpy()
                else:
                    stats["in_bank"] = scope.groupby("run").size().reindex(full.get_level_values(0)).to_numpy()
                stats[COUNTS] = stats[COUNTS].fillna(0)
                stats = stats.reset_index()
                stats.insert(1, "slice_value", "")
            else:
                bank_keys = keys if column else ["run", dim]
                counts = (placed_scope if column else scope).groupby(bank_keys, sort=False, dropna=True).size()
                stats["in_bank"] = counts.reindex(stats.index).to_numpy()
                stats = stats.reset_index()
                stats = stats.rename(columns={dim: "slice_value", **({column: "node"} if column else {})})
                if column is None:
                    stats.insert(2, "node", ROOT)
                stats["slice_value"] = stats["slice_value"].astype(str)
            stats.insert(1, "slice", dim)
            stats.insert(3, "kind", kind)
            parts.append(stats)
    table = pd.concat(parts, ignore_index=True)
    del parts, derived, placed  # the per-answer numbers and the parts' copies, before the columns added below
    _add_names(table, graph, scope)
    _add_intervals(table)
    _add_macro(table)
    for column in (*COUNTS, "in_bank", "questions", *[f"{m[len(SCORE_PREFIX) :]}:n" for m in metrics]):
        table[column] = table[column].fillna(0).astype(int)
    meta = frame.groupby("run", sort=False)[list(RUN_COLUMNS[1:])].first()
    table = table.join(meta, on="run")
    return table[[*RUN_COLUMNS, "slice", "slice_value", *_column_order(table, k, metrics)]]


Further = dict[tuple[tuple[str, str, str], ...], tuple[tuple[str, ...], ...]]
"""The further places of one frame's questions, one shared tuple per distinct set (:func:`_further`)."""


def _further(question: Question, shared: Further) -> tuple[tuple[str, ...], ...] | None:
    """The question's places beyond its own (:func:`kg.graph.place_names`), as ``(subject_id, level1_id,
    level2_id, subject, level1, level2)`` tuples; ``None`` for a question at one place. ``shared`` holds the sets
    already built for the frame being made (its rows share one object per set), and goes with it: a process that
    makes frame after frame (tests, a notebook) keeps none of them."""
    names = place_names(question)[1:]
    if not names:
        return None
    key = tuple(names)
    found = shared.get(key)
    if found is None:
        found = shared[key] = tuple((*place_ids(*name).values(), *name) for name in names)
    return found


def _at_every_place(part: pd.DataFrame) -> pd.DataFrame:
    """``part``'s rows, and again a row at each further place of a question that has one (:data:`FURTHER`), with
    that place's node ids (and names, where ``part`` has them): what counts by subject and knowledge point read."""
    if FURTHER not in part or not part[FURTHER].notna().any():
        return part
    moved = part[part[FURTHER].notna()]
    copies = []
    for depth in range(max(len(places) for places in moved[FURTHER])):
        reaching = moved[[len(places) > depth for places in moved[FURTHER]]]
        places = [places[depth] for places in reaching[FURTHER]]
        columns = ["subject_id", "level1_id", "level2_id", "subject", "level1", "level2"]
        copies.append(
            reaching.assign(
                **{c: [place[i] for place in places] for i, c in enumerate(columns) if c in reaching},
            )
        )
    return pd.concat([part, *copies])


def _nodes_of(graph: KnowledgeGraph, kind: str, in_scope: pd.Series) -> list[str]:
    """The graph's nodes of ``kind``, then those only the runs' banks hold (never recorded), in order."""
    nodes = list(graph.nodes_of_kind(kind))
    known = set(nodes)
    return nodes + sorted({str(n) for n in in_scope.dropna()} - known)


RUN_TOTALS = (
    "asked",
    "in_bank",
    "n",
    "correct",
    "acc_micro",
    "acc_micro_lo",
    "acc_micro_hi",
    "acc_macro",
    "unparsed_rate",
)
"""A run's whole-bank figures (its root row) that summary.json and the page both carry."""
COUNTS = ["records", "asked", "n", "correct", "unparsed", "failed", "n_ranked"]
"""Columns that are sums (0 for an empty node, never NaN): ``records``, ``asked``, ``unparsed`` and ``failed``
count questions; ``n`` and ``correct`` count units (a judgment question's statements under a per-statement
rule)."""


def _derived(frame: pd.DataFrame, k: int, metrics: list[str]) -> pd.DataFrame:
    """Per answered question: the numbers to sum or average, plus the keys to group by."""
    needed = [
        "run", *SLICES, *(column for _, column in LEVELS), "lead", "asked", "scored", "correct", "unparsed", "failed",
        "partial", "rank", "n_options", *metrics, *([FURTHER] if FURTHER in frame else []),
    ]  # fmt: skip
    answered = frame.loc[frame["answered"], needed]  # the columns it reads, not a copy of every column
    rank = answered["rank"]
    lead = answered["lead"].astype(int)
    return pd.DataFrame(
        {
            "run": answered["run"],
            **{dim: answered[dim] for dim in SLICES},
            **{column: answered[column] for _, column in LEVELS},
            **({FURTHER: answered[FURTHER]} if FURTHER in answered else {}),
            "records": lead,
            "asked": answered["asked"].astype(int) * lead,
            "n": answered["scored"].astype(int),
            "correct": answered["correct"].fillna(0.0),
            "unparsed": answered["unparsed"].astype(int) * lead,
            "failed": answered["failed"].astype(int) * lead,
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


def _add_names(table: pd.DataFrame, graph: KnowledgeGraph, scope: pd.DataFrame) -> None:
    """Name, parent, subject, group and question count of each node, looked up once per node (a node only a
    run's bank holds: from ``scope``)."""
    nodes = graph.graph.nodes
    counts: dict[str, int] = {ROOT: len(graph)}
    for question in graph.questions.values():
        for node in {node for place in placements(question) for node in place.values()}:
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
    unknown = set(table["node"].unique()) - set(info)
    if unknown and "subject_id" in scope:
        for row in scope.drop_duplicates("level2_id").itertuples(index=False):
            names = {
                row.subject_id: (row.subject, ""),
                row.level1_id: (row.level1, row.subject_id),
                row.level2_id: (row.level2, row.level1_id),
            }
            for node, (name, parent) in names.items():
                if node in unknown and node not in info:
                    info[node] = (str(name), parent, str(row.subject), str(row.group or ""))
    # Looked up per distinct node and spread by its code: not a string object per row (190,000 at 100,000 questions).
    codes, distinct = pd.factorize(table["node"], use_na_sentinel=False)
    rows = [info.get(n, (n, "", "", "")) for n in distinct]
    for position, column in enumerate(("name", "parent", "subject", "group")):
        table[column] = np.array([row[position] for row in rows], dtype=object)[codes].tolist()
    table["questions"] = np.array([counts.get(n, 0) for n in distinct], dtype=np.int64)[codes]


def _add_intervals(table: pd.DataFrame) -> None:
    n = table["n"].astype(int)
    correct = table["correct"].round().astype(int)
    table["acc_micro"] = np.where(n > 0, correct / n.where(n > 0, 1), np.nan)
    bounds = [wilson_interval(c, m) for c, m in zip(correct, n, strict=True)]
    table["acc_micro_lo"] = [b[0] for b in bounds]
    table["acc_micro_hi"] = [b[1] for b in bounds]
    answered = (table["records"] - table["failed"]).astype(float)
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
        "kind", "node", "parent", "name", "subject", "group", "questions", "in_bank", "records", "asked",
        "n", "correct",
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
    level2 = (nodes["slice"] == "all") & (nodes["kind"] == "level2") & (nodes["n"] >= max(1, min_n))
    # Ranked on the four columns it sorts by, then the chosen rows taken whole: not a copy of every point's row.
    keys = nodes.loc[level2, ["run", "acc_micro_hi", "acc_micro", "n"]].set_axis(np.flatnonzero(level2.to_numpy()))
    ordered = keys.sort_values(["run", "acc_micro_hi", "acc_micro", "n"], ascending=[True, True, True, False])
    chosen = ordered.groupby("run", sort=False).head(top).index
    return nodes.take(chosen).reset_index(drop=True)


def page_nodes(nodes: pd.DataFrame) -> pd.DataFrame:
    """The rows of a node table the page and summary.json read (:func:`weakest_points`, the runs' totals, the
    subjects, the arts / science groups): the ``all`` slice and each group's root row, in order."""
    if nodes.empty:
        return nodes
    return nodes[(nodes["slice"] == "all") | ((nodes["slice"] == "group") & (nodes["node"] == ROOT))]


def _groups(question: Question) -> tuple[str, ...]:
    """All the categories a question's subject sits in; its ``group`` alone when the source names no others."""
    listed = question.extra.get("categories")
    if isinstance(listed, list) and listed and all(isinstance(c, str) for c in listed):
        return tuple(listed)
    group = question.group or subject_group(question.subject)
    return (group,) if group else ()
