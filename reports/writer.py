"""Write a report folder from run folders: tables, aggregates, plots, summary and the HTML page.

``REPORT_DIR`` gets::

    index.html              the teacher's report (one file, opens from disk, no network)
    nodes.csv / .parquet    one row per run x slice x node (see reports.aggregate)
    questions.csv / .parquet one row per run x question (the .parquet files need pyarrow: k12eval[parquet])
    report.xlsx             with ``xlsx=True``: the node table and the weakest points (openpyxl: k12eval[xlsx])
    tables/*.csv, *.md      the papers' tables and the analyses; tables.md has them all
    plots/*.png             (matplotlib: k12eval[plots]) heatmap, arts vs science, weakest points, unparsed answers
    summary.json            headline numbers per run, files written, warnings

A missing optional package (pyarrow, matplotlib, openpyxl) leaves its files out with a
warning naming the extra to install; the rest of the report is written.

The folder is built beside ``REPORT_DIR`` and swapped in whole (:mod:`reports.staging`),
so all its files come from one build and a failed build leaves the previous report as it was.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from reports.tables import JUDGMENT_CAPTION_ZH, JUDGMENT_SCORING, JudgmentScoring
from runners.files import naming

if TYPE_CHECKING:
    from runners.gaokao_score import GaokaoScores

TABLE_TITLES: dict[str, tuple[str, str, str]] = {
    "ck12_table1_type_by_mode": ("按题型与模式的正确率（文科 / 理科）", "Accuracy by question type and mode (arts / science)", "CK12 Table 1"),
    "ck12_table2_cot_step_scores": ("思维链步骤得分", "CoT step scores", "CK12 Table 2"),
    "ck12_table3_level1": ("一级知识点正确率", "Accuracy of level-1 knowledge points", "CK12 Table 3"),
    "ck12_judgment_rules": ("判断题在各计分规则下的正确率", "Judgment accuracy under each scoring rule", "CK12 released scorer"),
    "cmmlu_categories": ("分类得分（学科正确率的简单平均）", "Category scores (unweighted mean of subject accuracies)", "CMMLU"),
    "xiezhi_ranking": ("选项排序指标", "Option ranking metrics", "Xiezhi"),
    "xiezhi_disciplines": ("各学科结果（多标签题计入每个学科）", "Results per discipline (a question counts under each of its labels)", "Xiezhi"),
    "xiezhi_split": ("专业题 vs 跨学科题", "Specialty vs Interdiscipline", "Xiezhi"),
    "analysis_negation": ("含否定词 vs 不含", "Questions with vs without negation words", "CMMLU analysis"),
    "analysis_sub_options": ("含子选项 vs 不含", "Questions with vs without sub-options (①②③, a b c)", "CMMLU analysis"),
    "analysis_variants": ("原题 vs 打乱选项 vs 干扰项（同题配对）", "Original vs shuffled vs distractors (paired)", "CK12 variants"),
    "analysis_cot": ("思维链 vs 直接作答（同题配对）", "CoT vs no CoT (paired)", "paired"),
    "analysis_difficulty": ("每题答对的运行数分布", "How many runs answer each question right", "CMMLU analysis"),
    "analysis_error_types": ("错误类型（CK12 的分类）", "Error types (CK12's categories)", "CK12 analysis"),
    "harness_agreement": ("k12eval 与 lm-eval 判定的一致性", "k12eval's verdicts against lm-eval's own", "lm-eval"),
    "harness_disagreements": ("k12eval 与 lm-eval 判定不同的题", "Answers k12eval and lm-eval grade differently", "lm-eval"),
    "circular": ("循环评测：每种轮换都对 vs 原顺序", "CircularEval: right in every rotation vs the original order", "OpenCompass"),
    "gaokao_scoring_rate": ("客观题得分率（按发布的评分脚本）", "Objective scoring rate (the release's scorer)", "GAOKAO-Bench"),
    "gaokao_scores": ("得分率的明细与区间", "Scoring rates in detail, with intervals", "GAOKAO-Bench"),
}  # fmt: skip


COLUMN_TITLES: dict[str, tuple[str, str]] = {
    "run": ("运行", "run"), "model": ("模型", "model"), "mode": ("模式", "mode"), "variant": ("题目版本", "variant"),
    "level1": ("一级知识点", "level-1 point"), "discipline": ("学科", "discipline"), "n": ("题数", "n"),
    "overall": ("总体", "overall"), "arts": ("文科", "arts"), "science": ("理科", "science"),
    "average (macro over subjects)": ("平均（各学科简单平均）", "average (macro over subjects)"),
    "Acc": ("正确率", "Acc"), "Faithfulness-Step": ("忠实度（步骤）", "Faithfulness-Step"),
    "Source-Consistency": ("与题目一致", "Source-Consistency"), "Reasoning Alignment": ("与解析对齐", "Reasoning Alignment"),
    "Hallucination": ("无幻觉", "Hallucination"), "Redundancy": ("无冗余", "Redundancy"),
    "Max contradiction (paper, lower is better)": ("与题目矛盾的最大概率（论文，越低越好）", "Max contradiction (paper, lower is better)"),
    "n_with": ("含此特征的题数", "questions with"), "acc_with": ("含此特征的正确率", "accuracy with"),
    "acc_with_lo": ("含：区间下限", "with: interval low"), "acc_with_hi": ("含：区间上限", "with: interval high"),
    "n_without": ("不含此特征的题数", "questions without"), "acc_without": ("不含此特征的正确率", "accuracy without"),
    "acc_without_lo": ("不含：区间下限", "without: interval low"), "acc_without_hi": ("不含：区间上限", "without: interval high"),
    "share_with": ("含此特征的占比", "share with"), "difference": ("差值", "difference"),
    "run_a": ("运行 A", "run A"), "run_b": ("运行 B", "run B"), "n_pairs": ("配对题数", "pairs"),
    "acc_a": ("A 的正确率", "accuracy A"), "acc_b": ("B 的正确率", "accuracy B"),
    "both_right": ("都对", "both right"), "only_a_right": ("仅 A 对", "only A right"),
    "only_b_right": ("仅 B 对", "only B right"), "both_wrong": ("都错", "both wrong"),
    "mcnemar_p": ("McNemar 检验 p 值", "McNemar p"), "with": ("有思维链", "with CoT"), "without": ("无思维链", "without CoT"),
    "accuracy": ("正确率", "accuracy"), "MRR": ("MRR（平均倒数排名）", "MRR"), "mean rank": ("平均排名", "mean rank"),
    "mean rank / options": ("平均排名 / 选项数", "mean rank / options"),
    "single_choice": ("单选", "single choice"), "multiple_choice": ("多选", "multiple choice"),
    "judgment": ("判断", "true/false"), "fill_in_blank": ("填空", "fill in"), "sorting": ("排序", "sorting"),
    "cloze": ("完形填空", "cloze"),
    "task": ("任务", "task"), "metric": ("指标", "metric"), "agree": ("判定一致", "agree"),
    "agreement": ("一致率", "agreement"), "agreement_lo": ("一致率区间下限", "agreement low"),
    "agreement_hi": ("一致率区间上限", "agreement high"), "only_k12eval_right": ("仅 k12eval 判对", "only k12eval right"),
    "only_harness_right": ("仅 lm-eval 判对", "only lm-eval right"), "acc_k12eval": ("k12eval 正确率", "k12eval accuracy"),
    "acc_harness": ("lm-eval 正确率", "lm-eval accuracy"), "question": ("题目", "question"), "where": ("样本位置", "sample"),
    "gold": ("标准答案", "gold"), "target": ("lm-eval 的标准答案", "lm-eval target"),
    "extracted": ("k12eval 抽取的答案", "k12eval extracted"), "filtered": ("lm-eval 过滤后的答案", "lm-eval filtered"),
    "k12eval": ("k12eval 判定", "k12eval"), "harness": ("lm-eval 判定", "lm-eval"),
    "type": ("题型", "type"), "questions": ("题数", "questions"),
    "asked / in bank": ("作答题数 / 题库题数", "asked / in bank"),
    "per-statement": ("按判断（k12eval）", "per-statement (k12eval)"), "per-item": ("按题（k12eval）", "per-item (k12eval)"),
    "ck12-release": ("CK12 发布的评分脚本", "ck12-release (the released scorer)"),
    "per-statement n": ("按判断：答对 / 计入", "per-statement: right / counted"),
    "per-item n": ("按题：答对 / 计入", "per-item: right / counted"),
    "ck12-release n": ("发布脚本：答对 / 计入", "ck12-release: right / counted"),
    "runs_right": ("答对的运行数", "runs right"), "runs": ("运行数", "runs"),
    "share": ("占比", "share"), "share_lo": ("区间下限", "interval low"), "share_hi": ("区间上限", "interval high"),
    "error_type": ("错误类型", "error type"), "wrong": ("答错的题数", "wrong answers"),
    "STEM": ("理工（STEM）", "STEM"), "Humanities": ("人文学科", "Humanities"),
    "Social Science": ("社会科学", "Social Science"), "Other": ("其他", "Other"),
    "China specific": ("中国特定主题", "China specific"),
}  # fmt: skip
"""What the page calls each column of the tables, in Chinese and in English (a column not listed, such as
a run's name, shows as it is)."""

SOURCES_ZH = {
    "CMMLU analysis": "CMMLU 的分析",
    "CK12 analysis": "CK12 的分析",
    "CK12 released scorer": "CK12 发布的评分脚本",
    "CK12 variants": "CK12 题目变体",
    "paired": "同题配对",
}
"""Where a table comes from, on the Chinese page (``CK12 Table 1`` becomes ``CK12 表 1``)."""

SPLITS_ZH = {"Specialty": "专业题", "Interdiscipline": "跨学科题"}
PER_MODEL_ZH = {"arts": "文科", "science": "理科", "asked / in bank": "作答题数 / 题库题数"}
SELECTIONS_ZH = {"all": "全部题目", "reasoning-subset": "推理子集（CK12 表 2）"}


def column_title(column: str) -> tuple[str, str]:
    """``(zh, en)`` title of a table column: :data:`COLUMN_TITLES`, ``Hit@k``, ``Specialty n``..., else the name."""
    if column in COLUMN_TITLES:
        return COLUMN_TITLES[column]
    if column.startswith("Hit@"):
        return f"前 {column[4:]} 命中率", column
    head, dot, tail = column.rpartition(" · ")
    if dot and tail in PER_MODEL_ZH:  # Table 1's "<model> · arts", Table 3's "<run> · asked / in bank"
        return f"{'平均' if head == 'average' else head} {PER_MODEL_ZH[tail]}", column
    split, _, rest = column.partition(" ")
    if split in SPLITS_ZH and rest:
        return f"{SPLITS_ZH[split]} {column_title(rest)[0]}", column
    return column, column


@dataclass
class ReportResult:
    """What :func:`write_report` wrote."""

    out: Path
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    gaokao: dict[str, GaokaoScores] = field(default_factory=dict)
    """Each GAOKAO-Bench run's scoring rates by run id, at full precision: what the printed line formats
    (``summary``'s are rounded to 4 decimals: a bound of 0.38545 printed from 0.3855 read 38.6 %, not the
    38.5 % ``run`` printed)."""


def build_tables(
    frame: pd.DataFrame,
    graph: Any,
    k: int,
    subject: str | None,
    stage: str | None,
    *,
    selected: pd.Series | None = None,
    select: str = "all",
    judgment: JudgmentScoring = "per-statement",
    xiezhi: pd.DataFrame | None = None,
    counted: pd.DataFrame | None = None,
    scope: pd.DataFrame | None = None,
) -> dict[str, pd.DataFrame]:
    """Every table of the report by name (empty tables included, so their absence is visible).

    ``selected`` (a boolean mask of ``frame``'s rows) is the named selection ``select`` CK12 Table 2
    is computed over; ``judgment`` how CK12 Table 1 scores judgment items (see
    :data:`reports.tables.JUDGMENT_SCORING`); ``xiezhi`` the Xiezhi questions' rows with their labels
    and split (:func:`reports.xiezhi_tables.xiezhi_coordinates`); ``counted`` the frame the accuracy tables
    count (Tables 1 and 3: ``frame`` spread into the units it counts, :func:`reports.aggregate.statement_rows`;
    default ``frame``); ``scope`` the questions of the runs' banks (:func:`reports.aggregate.scope_frame`), for
    "n asked / n in bank". A table's ``attrs["caption"]`` says what it counts.
    """
    from reports import analyses, tables
    from reports.xiezhi_tables import discipline_scores, split_scores

    if subject is None:  # CK12 Table 3's choice, or the biggest subject; a given subject spans all stages
        subject, chosen_stage = tables.default_subject_stage(frame)
        stage = stage or chosen_stage
    counted = frame if counted is None else counted
    fmt = _format_analysis
    features = analyses.text_features(graph)
    return {
        "ck12_table1_type_by_mode": tables.type_by_mode(counted, judgment, scope),
        "ck12_table2_cot_step_scores": _table2(frame if selected is None else frame[selected], select),
        "ck12_table3_level1": _table3(counted, subject, stage, judgment, scope),
        "ck12_judgment_rules": tables.judgment_rules(frame),
        "cmmlu_categories": tables.category_scores(frame, scope),
        "xiezhi_ranking": tables.ranking(frame, k),
        "xiezhi_disciplines": discipline_scores(xiezhi) if xiezhi is not None else pd.DataFrame(),
        "xiezhi_split": split_scores(xiezhi) if xiezhi is not None else pd.DataFrame(),
        "analysis_negation": fmt(analyses.split_accuracy(frame, graph, "negation", features)),
        "analysis_sub_options": fmt(analyses.split_accuracy(frame, graph, "sub_options", features)),
        "analysis_variants": fmt(analyses.variant_pairs(frame)),
        "analysis_cot": fmt(analyses.cot_pairs(frame)),
        "analysis_difficulty": fmt(analyses.difficulty_distribution(frame)),
        "analysis_error_types": fmt(analyses.error_types(frame)),
    }


def _table3(
    frame: pd.DataFrame, subject: str, stage: str | None, judgment: JudgmentScoring, scope: pd.DataFrame | None
) -> pd.DataFrame:
    """CK12 Table 3, its caption saying how judgment questions count."""
    from reports.tables import level1_accuracy, type_by_mode_caption

    table = level1_accuracy(frame, subject, stage, scope)
    if len(frame) and (frame["type"] == "judgment").any():
        table.attrs["caption"] = f"{table.attrs.get('caption', '')} {type_by_mode_caption(judgment)}".strip()
        table.attrs["caption_zh"] = table.attrs.get("caption_zh", "") + JUDGMENT_CAPTION_ZH[judgment]
    return table


def _table2(frame: pd.DataFrame, select: str) -> pd.DataFrame:
    """CK12 Table 2 over the selection's questions, its caption naming the selection."""
    from reports.tables import cot_step_scores

    table = cot_step_scores(frame)
    table.attrs["caption"] = f"Questions: {select}."
    table.attrs["caption_zh"] = f"题目范围：{SELECTIONS_ZH.get(select, select)}。"
    return table


def selection_mask(runs: list[Any], frame: pd.DataFrame, select: str) -> pd.Series:
    """Which rows of ``frame`` (run x question) are in the named selection ``select`` of each run's questions
    (what each question's ``extra`` records of it: :func:`reports.runs.slim`)."""
    from reports.runs import SELECTED
    from runners.selection import SELECTIONS
    from runners.selection import select as select_questions

    select_questions([], select)  # an unknown name is refused
    rule = SELECTIONS[select]
    mask = pd.Series(False, index=frame.index, dtype=bool)
    for run in runs:  # per run, the ids in the selection: no (run, id) pair built per row
        ids = [
            q.id for q in run.questions.values() if (select in q.extra[SELECTED] if SELECTED in q.extra else rule(q))
        ]
        mask |= (frame["run"] == run.id) & frame["question_id"].isin(ids)
    return mask


def _format_analysis(table: pd.DataFrame) -> pd.DataFrame:
    """Accuracies as percentages, p-values with 3 decimals, for display."""
    from reports.tables import pct

    shown = table.copy()
    for column in shown.columns:
        if column.startswith(("acc", "share", "agreement")) or column == "difference":
            shown[column] = [pct(v) for v in shown[column]]
        elif column == "mcnemar_p":
            shown[column] = [f"{v:.3f}" for v in shown[column]]
    return shown


@contextlib.contextmanager
def _malloc_strings() -> Iterator[None]:
    """pandas' string columns (pyarrow buffers) allocated by the system's malloc while the report is built,
    the default pool restored after: pyarrow's mimalloc keeps what freed frames held for itself (at 100,000
    questions the report's peak was 0.88 GB with it, 0.77 GB without)."""
    if not installed("pyarrow"):
        yield
        return
    import pyarrow

    previous = pyarrow.default_memory_pool()
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    try:
        yield
    finally:
        pyarrow.set_memory_pool(previous)


@_malloc_strings()
def write_report(
    run_dirs: list[Path],
    out: Path,
    data: Path | None = None,
    *,
    k: int = 4,
    subject: str | None = None,
    stage: str | None = None,
    title: str = "k12eval report",
    cjk_font: str | None = None,
    plots: bool = True,
    xlsx: bool = False,
    select: str = "all",
    judgment: JudgmentScoring | None = None,
) -> ReportResult:
    """Read the runs and write the whole report folder; returns the files written and warnings.

    ``select`` names the selection of :mod:`runners.selection` CK12 Table 2 is computed over
    (``reasoning-subset``: the paper's). The folder is replaced whole (see :mod:`reports.staging`):
    ``out`` must be new, empty or an earlier report (its marker file), and neither hold nor be an input
    or the current folder (:func:`runners.out_folder.check_out`). ``judgment`` is how a multi-statement judgment
    counts in ``overall``, ``nodes.csv`` and the tables (:mod:`runners.counting`): ``per-statement``
    (k12eval's extraction, a statement without a verdict wrong), ``per-item`` (right only when every
    statement is; k12eval's stricter rule) or ``ck12-release`` (the released evaluator's count); ``None``:
    the rule of the runs' protocol (:func:`runs_judgment_rule`). Table 1's caption says which.
    """
    from kg.errors import InputError
    from reports.aggregate import (
        SCORE_PREFIX,
        counted_rows,
        node_table,
        page_nodes,
        question_frame,
        scope_frame,
        score_columns,
    )
    from reports.runs import Note, graph_of, load_runs
    from reports.staging import check_replaceable, staged_folder
    from runners.options import choose
    from runners.out_folder import check_out
    from runners.selection import SELECTIONS

    started = time.perf_counter()
    # Before anything is read: the folder is replaced whole, so it may hold no input and no one's files.
    check_replaceable(check_out(out, [*run_dirs, data]))
    choose(select, tuple(SELECTIONS), "select")
    if judgment is not None:
        choose(judgment, JUDGMENT_SCORING, "judgment")
    if not run_dirs:
        raise InputError("give at least one run folder")
    runs, warnings = load_runs(run_dirs, data)
    if not any(run.records for run in runs):
        raise InputError(f"no answered questions in {', '.join(str(r.dir) for r in runs)}")
    # A run stopped before its first answer was kept (run.json only) is named once and left out.
    empty = [run for run in runs if not run.records]
    warnings += [
        Note(f"{run.dir}: no answered questions yet; left out of this report", f"{run.dir}：还没有作答，未计入本报告")
        for run in empty
    ]
    runs = [run for run in runs if run.records]
    judgment = judgment or runs_judgment_rule(runs)
    graph = graph_of(runs)
    frame = question_frame(runs, graph, judgment)
    _release_unused()  # what building it took and freed, before the frames built from it
    counted = counted_rows(frame)
    scope = scope_frame(runs, graph, frame)
    # The papers' tables before the node table: the per-unit rows they and it count go once both are counted.
    built = _build_tables(
        runs,
        graph,
        frame,
        k=k,
        subject=subject,
        stage=stage,
        selected=selection_mask(runs, frame, select),
        select=select,
        judgment=judgment,
        counted=counted,
        scope=scope,
    )
    nodes = node_table(counted, graph, k=k, scope=scope)
    del counted, scope
    _release_unused()
    result = ReportResult(out=out, warnings=warnings)
    # Built beside ``out`` and swapped in whole: a kill or a full disk leaves the previous report.
    with staged_folder(out) as folder:
        spreadsheet = _write_nodes(folder, nodes, result, xlsx=xlsx)
        # The tables, the plots, the page and summary.json read a few of the nodes' rows, not every slice's: the
        # others go before questions.csv is written (at 100,000 questions, 160,000 rows held while it was).
        nodes = page_nodes(nodes)
        _release_unused()
        _write_table(folder, "questions", frame, result)
        result.files += spreadsheet
        metrics = [column.removeprefix(SCORE_PREFIX) for column in score_columns(frame)]
        # The plots and the page read the runs and a few of the nodes' rows: the row-per-answer frame goes first.
        del frame
        _release_unused()
        page_tables = _write_tables(folder, runs, built, nodes, result, title=title, cjk_font=cjk_font, plots=plots)
        del built
        _write_page(
            folder, runs, graph, nodes, page_tables, metrics, result, k=k, title=title, judgment=judgment, data=data
        )
        result.summary = _summary(runs, nodes, result, result.summary, time.perf_counter() - started)
        result.gaokao = {run.id: found for run in runs if (found := run.gaokao) is not None}
        with naming(Path(result.out) / "summary.json"):
            (folder / "summary.json").write_text(
                json.dumps(result.summary, ensure_ascii=False, indent=1), encoding="utf-8"
            )
        result.files.append("summary.json")
    return result


def runs_judgment_rule(runs: list[Any]) -> JudgmentScoring:
    """The judgment rule the runs' protocols name (:func:`runners.counting.header_judgment_rule`, as ``run``'s
    summary reads it). Runs naming different rules are refused: give ``--judgment``."""
    from kg.errors import InputError
    from runners.counting import header_judgment_rule

    named = {header_judgment_rule(run.header) for run in runs}
    if len(named) > 1:
        differ = ", ".join(sorted(named))
        raise InputError(
            lambda name: (
                f"the runs' protocols count judgment questions differently ({differ}); "
                f"choose one with {name('judgment')}"
            )
        )
    (rule,) = named
    return rule


@contextlib.contextmanager
def _writing(out: Path, path: Path, result: ReportResult) -> Iterator[None]:
    """Record ``path`` (in the staging folder ``out``) once written; a full disk while writing it names it (its
    final place)."""
    with naming(Path(result.out) / path.relative_to(out)):
        yield
    result.files.append(str(path.relative_to(out)))


def _write_nodes(out: Path, nodes: pd.DataFrame, result: ReportResult, *, xlsx: bool) -> list[str]:
    """Write the node table (CSV, parquet) and, with ``xlsx``, the spreadsheet into ``out`` (the staging folder),
    recording the node files in ``result``; returns the spreadsheet's name when written, which the caller records
    after the question table's files (their order in summary.json)."""
    from reports.aggregate import weakest_points
    from reports.spreadsheet import write_xlsx

    _write_table(out, "nodes", nodes, result)
    if xlsx and _missing("openpyxl", "xlsx", "report.xlsx", result.warnings):
        with naming(Path(result.out) / "report.xlsx"):
            write_xlsx({"nodes": nodes, "weakest": weakest_points(nodes, top=10)}, out / "report.xlsx")
        return ["report.xlsx"]
    return []


def _write_table(out: Path, name: str, table: pd.DataFrame, result: ReportResult) -> None:
    """Write ``table`` as ``name.csv`` and ``name.parquet`` into ``out`` (the staging folder), recording them in
    ``result``; without pyarrow, the CSV file and a warning (once)."""
    with _writing(out, out / f"{name}.csv", result):
        _write_csv_in_parts(table, out / f"{name}.csv")
    _release_unused()  # what escaping the parts took, before parquet's copy (30 MB at 100,000 questions)
    if installed("pyarrow"):
        with _writing(out, out / f"{name}.parquet", result):
            table.to_parquet(out / f"{name}.parquet", index=False)
    elif name == "nodes":
        _missing("pyarrow", "parquet", "nodes.parquet and questions.parquet", result.warnings)
    _release_unused()  # what encoding the table took, before the next one (40 MB at 100,000 questions)


def _build_tables(
    runs: list[Any],
    graph: Any,
    frame: pd.DataFrame,
    *,
    k: int,
    subject: str | None,
    stage: str | None,
    selected: pd.Series,
    select: str,
    judgment: JudgmentScoring,
    counted: pd.DataFrame,
    scope: pd.DataFrame,
) -> dict[str, pd.DataFrame]:
    """Every table of the report by name, in the order it is written: the papers' tables and the analyses
    (:func:`build_tables`), then the benchmarks' figures from the runs' records."""
    from reports.circular_tables import circular_tables
    from reports.gaokao_tables import gaokao_tables, with_units
    from reports.harness_agreement import agreement_tables
    from reports.xiezhi_tables import xiezhi_coordinates

    built = build_tables(
        frame,
        graph,
        k,
        subject,
        stage,
        selected=selected,
        select=select,
        judgment=judgment,
        xiezhi=xiezhi_coordinates(runs, frame),
        counted=counted,
        scope=scope,
    )
    agreement, disagreements = agreement_tables(runs)
    built["harness_agreement"], built["harness_disagreements"] = _format_analysis(agreement), disagreements
    built |= circular_tables(runs) | gaokao_tables(runs)  # benchmark figures, from the runs' records
    return with_units(built, runs)


def _write_tables(
    out: Path,
    runs: list[Any],
    built: dict[str, pd.DataFrame],
    nodes: pd.DataFrame,
    result: ReportResult,
    *,
    title: str,
    cjk_font: str | None,
    plots: bool,
) -> list[dict[str, Any]]:
    """Write the tables ``built`` (:func:`_build_tables`) and the plots into ``out`` (the staging folder),
    recording them in ``result``; ``nodes``: the node table's rows the plots read
    (:func:`reports.aggregate.page_nodes`). Returns the tables as the page shows them."""
    from reports.markdown import markdown
    from reports.spreadsheet import write_csv

    (out / "tables").mkdir(exist_ok=True)

    def writing(path: Path) -> contextlib.AbstractContextManager[None]:
        return _writing(out, path, result)

    sections = [f"# {title}\n"]
    page_tables = []
    for name, table in built.items():
        zh, en, source = TABLE_TITLES[name]
        caption = table.attrs.get("caption")
        text = markdown(table, f"{en} ({source})", note=caption)
        with writing(out / "tables" / f"{name}.csv"):
            write_csv(table, out / "tables" / f"{name}.csv")
        with naming(Path(result.out) / "tables" / f"{name}.md"):
            (out / "tables" / f"{name}.md").write_text(text, encoding="utf-8")
        sections.append(text)
        page_tables.append(
            {
                "id": name,
                "zh": zh,
                "en": en,
                "source": source,
                "source_zh": SOURCES_ZH.get(source, source.replace(" Table ", " 表 ")),
                "caption": caption,
                "caption_zh": table.attrs.get("caption_zh", caption),
                "columns": [str(c) for c in table.columns],
                "titles": table.attrs.get("titles")
                or {
                    "zh": [column_title(str(c))[0] for c in table.columns],
                    "en": [column_title(str(c))[1] for c in table.columns],
                },
                "rows": table.astype(object).where(table.notna(), None).values.tolist(),
            }
        )
    with writing(out / "tables.md"):
        (out / "tables.md").write_text("\n".join(sections), encoding="utf-8")

    run_list = [{"id": r.id, "label": r.label} for r in runs]
    if plots and _missing("matplotlib", "plots", "plots/*.png", result.warnings):
        from reports.plots import write_plots

        with naming(Path(result.out) / "plots"):
            result.warnings += write_plots(nodes, run_list, out / "plots", font=cjk_font)
        result.files += [f"plots/{p.name}" for p in sorted((out / "plots").glob("*.png"))]
    return page_tables


def _write_page(
    out: Path,
    runs: list[Any],
    graph: Any,
    nodes: pd.DataFrame,
    page_tables: list[dict[str, Any]],
    metrics: list[str],
    result: ReportResult,
    *,
    k: int,
    title: str,
    judgment: JudgmentScoring,
    data: Path | None,
) -> None:
    """Write ``index.html`` into ``out`` (the staging folder), streamed as it is encoded; ``result.summary``
    gets the page's metadata (what summary.json starts from)."""
    from reports.html import write_page
    from reports.payload import build_payload, detail_cap, legacy_report_identity, report_identity
    from reports.runs import Note

    shown, total = min(detail_cap(), len(graph.questions)), len(graph.questions)
    if shown < total:
        result.warnings.append(
            Note(
                f"the page carries the texts and answers of {shown:,} of the {total:,} questions, spread evenly over "
                f"the knowledge points (at most {detail_cap():,}: $K12EVAL_PAGE_QUESTIONS); every count covers all "
                "of them, and questions.csv holds every answer",
                f"页面只收录了 {total:,} 道题中 {shown:,} 道的题干和作答（均匀分布在各知识点，上限 {detail_cap():,}："
                "$K12EVAL_PAGE_QUESTIONS）；所有统计都涵盖全部题目，questions.csv 含每道题的作答",
            )
        )
    meta = {
        "title": title,
        "identity": report_identity(result.out),
        "legacy_identity": legacy_report_identity(runs, result.out),
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "version": _version(),
        "k": k,
        "judgment": judgment,
        "warnings": result.warnings,
        "warnings_zh": [getattr(w, "zh", w) for w in result.warnings],
    }
    with _writing(out, out / "index.html", result):
        write_page(out / "index.html", build_payload(runs, graph, metrics, nodes, page_tables, meta, data), title)
    result.summary = meta


CSV_ROWS = 20_000
"""Rows of ``questions.csv`` and ``nodes.csv`` written at a time: a big table is never copied whole to be escaped
(at 100,000 questions, parts of 100,000 rows cost 47 MB more at the peak)."""


def _write_csv_in_parts(frame: pd.DataFrame, path: Path) -> None:
    """:func:`reports.spreadsheet.write_csv` of ``frame``, :data:`CSV_ROWS` rows at a time: each part is written
    by it (its escaping and encoding), then appended without its byte order mark and header line."""
    from reports.spreadsheet import write_csv

    if len(frame) <= CSV_ROWS:
        write_csv(frame, path)
        return
    part = path.with_name(path.name + ".part")
    write_csv(frame.iloc[:0], part)
    head = len(part.read_bytes())  # the byte order mark and the header line, the same for every part
    with path.open("wb") as out:
        for start in range(0, len(frame), CSV_ROWS):
            write_csv(frame.iloc[start : start + CSV_ROWS], part)
            data = part.read_bytes()
            out.write(data if start == 0 else data[head:])
    part.unlink()


def _release_unused() -> None:
    """Hand back to the system the memory freed frames held (pyarrow's pool: with the system's malloc, it trims
    the heap; at 100,000 questions, 50-70 MB after the question frame and after the node table)."""
    if installed("pyarrow"):
        import pyarrow

        pyarrow.default_memory_pool().release_unused()


def installed(module: str) -> bool:
    """Whether the optional package ``module`` can be imported (found, not imported: matplotlib is slow)."""
    return importlib.util.find_spec(module) is not None


def _missing(module: str, extra: str, what: str, warnings: list[str]) -> bool:
    """True when ``module`` is installed; else a warning naming what is left out and the extra to install."""
    if installed(module):
        return True
    from reports.runs import Note

    text = f"{module} is not installed: no {what}; install it with: pip install 'k12eval[{extra}]'"
    warnings.append(Note(text, f"没有安装 {module}：未生成 {what}；安装方法：pip install 'k12eval[{extra}]'"))
    return False


def _summary(
    runs: list[Any], nodes: pd.DataFrame, result: ReportResult, meta: dict[str, Any], seconds: float
) -> dict[str, Any]:
    from kg.records import QuestionType
    from reports.aggregate import ROOT, RUN_TOTALS, weakest_points
    from reports.gaokao_tables import headline
    from reports.html import clean
    from runners.counting import asked
    from runners.summary import invalid_left_out

    whole = nodes[(nodes["slice"] == "all") & (nodes["node"] == ROOT)].set_index("run")
    weakest = weakest_points(nodes, top=5)
    return clean(
        {
            **meta,
            "runs": [
                {
                    "id": run.id,
                    "dir": str(run.dir),
                    "model": run.header.model,
                    "mode": run.header.mode,
                    "variant": run.header.variant,
                    "bank": run.bank,
                    "records": len(run.records),
                    "scored_steps": len(run.scores),
                    # Asked: a judgment question whose request failed counted under no rule.
                    "judgment_asked": sum(r.type == QuestionType.JUDGMENT.value and asked(r) for r in run.records),
                    **dict(
                        zip(("invalid", "invalid_records", "invalid_unread"), invalid_left_out(run.header), strict=True)
                    ),
                    **{c: whole.loc[run.id, c] for c in RUN_TOTALS},
                    "unit": run.unit,
                    "gaokao": headline(run),
                    "weakest": [
                        {"node": r["node"], "n": r["n"], "acc": r["acc_micro"], "upper": r["acc_micro_hi"]}
                        for _, r in weakest[weakest["run"] == run.id].iterrows()
                    ],
                }
                for run in runs
            ],
            "files": result.files,
            "seconds": round(seconds, 2),
        }
    )


def _version() -> str:
    """The installed k12eval's version (read from its metadata: this package sits below the ``k12eval`` one)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("k12eval")
    except PackageNotFoundError:
        return "unknown"
