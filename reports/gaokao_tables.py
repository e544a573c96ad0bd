"""GAOKAO-Bench's tables: the scoring rate as its release prints it, by both graders, for each run of its questions.

The figures are :func:`runners.gaokao_score.gaokao_scores` over the run's records and its bank, the same
function ``summary.json``'s ``gaokao`` comes from, so the report and the run print one number. Two tables:

* ``gaokao_scoring_rate``: the release README's layout (Overall, Chinese, Eng., Sci. Math, Hum. Math, Phys.,
  Chem., Biol., Poli., Hist., Geog.), one row per run and grader, each cell the rate with its points.
* ``gaokao_scores``: every group (over all, each column, each file) with its points, the rate's 95 %
  interval, and the questions answered exactly right with their Wilson interval.

Each row names its grader: ``gaokao-release`` (the release's extraction, the README's figures) or ``k12eval``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from reports.tables import DASH, pct
from runners.gaokao_score import COLUMN_ORDER, OVERALL, GaokaoScores, ScoreRate

COLUMNS_ZH = {OVERALL: "总分", "Chinese": "语文", "Eng.": "英语", "Sci. Math": "理科数学", "Hum. Math": "文科数学",
              "Math": "数学", "Phys.": "物理", "Chem.": "化学", "Biol.": "生物", "Poli.": "政治", "Hist.": "历史",
              "Geog.": "地理"}  # fmt: skip
CAPTION = (
    "Scoring rate = points earned / points possible, as GAOKAO-Bench's Bench/OBJ_score_evaluation.py counts them "
    "(each question worth its record's score; physics 6, 3 for some right letters, else 0). Grader gaokao-release: "
    "the release's extraction (Bench/bench_function.py: for a single choice the last A-D letter anywhere), whose "
    "figures its README prints; k12eval: k12eval's extraction, same points. A record (one item of a release file's example list) "
    "holds one or more questions, each worth its points (an English cloze record holds 20). Only records asked count."
)
CAPTION_ZH = (
    "得分率 = 得分 / 满分，按 GAOKAO-Bench 的 Bench/OBJ_score_evaluation.py 计分（每小题按所在记录标注的分值计；物理全对 6 分、"
    "少选 3 分、错选 0 分）。gaokao-release：发布的答案抽取（Bench/bench_function.py：单选取全文最后一个 A-D 字母），即其 "
    "README 所列的数字；k12eval：k12eval 的答案抽取，分值相同。一条记录（发布文件中列出的一项）含一道或多道小题，每道小题按分值计分"
    "（一篇英语完形填空含 20 道小题）。只计已作答的记录。"
)


def gaokao_tables(runs: Iterable[Any]) -> dict[str, pd.DataFrame]:
    """``gaokao_scoring_rate`` and ``gaokao_scores`` over the runs holding GAOKAO-Bench questions (empty otherwise)."""
    scored = [(run, found) for run in runs if (found := run.gaokao) is not None]
    return {"gaokao_scoring_rate": _readme_layout(scored), "gaokao_scores": _groups(scored)}


def _readme_layout(scored: list[tuple[Any, GaokaoScores]]) -> pd.DataFrame:
    present = {c for _, found in scored for grader in found.graders.values() for c in grader.columns}
    columns = [c for c in COLUMN_ORDER if c == OVERALL or c in present] + sorted(present - set(COLUMN_ORDER))
    rows = []
    for run, found in scored:
        for name, grader in found.graders.items():
            cells = {OVERALL: grader.overall, **grader.columns}
            rows.append(
                {"run": run.label, "grader": name, "records asked": f"{found.asked}/{found.records}"}
                | {c: _cell(cells.get(c)) for c in columns}
            )
    head = ["run", "grader", "records asked"]
    table = pd.DataFrame(rows, columns=[*head, *columns])
    _label(table, head, columns)
    return table


def _groups(scored: list[tuple[Any, GaokaoScores]]) -> pd.DataFrame:
    rows = []
    for run, found in scored:
        for name, grader in found.graders.items():
            groups = [(OVERALL, grader.overall), *grader.columns.items(), *grader.files.items()]
            rows += [{"run": run.label, "grader": name, "group": group} | _detail(rate) for group, rate in groups]
    columns = ["run", "grader", "group", "records", "points", "scoring rate", "95% interval", "questions right",
               "share right", "Wilson 95%"]  # fmt: skip
    table = pd.DataFrame(rows, columns=columns)
    _label(table, columns, [])
    return table


def _cell(rate: ScoreRate | None) -> str:
    if rate is None or rate.rate is None:
        return DASH
    return f"{pct(rate.rate)} ({rate.earned:g}/{rate.possible:g})"


def _detail(rate: ScoreRate) -> dict[str, str]:
    return {
        "records": str(rate.records),
        "points": f"{rate.earned:g}/{rate.possible:g}",
        "scoring rate": pct(rate.rate) if rate.rate is not None else DASH,
        "95% interval": f"{pct(rate.low)}-{pct(rate.high)}" if rate.low is not None and rate.high is not None else DASH,
        "questions right": f"{rate.right}/{rate.questions}",
        "share right": pct(rate.share) if rate.share is not None else DASH,
        "Wilson 95%": f"{pct(rate.share_low)}-{pct(rate.share_high)}"
        if rate.share_low is not None and rate.share_high is not None
        else DASH,
    }


_HEAD_ZH = {"run": "运行", "grader": "评分方式", "records asked": "已作答记录", "group": "范围", "records": "记录数", "points": "得分",
            "scoring rate": "得分率", "95% interval": "95% 区间", "questions right": "答对小题",
            "share right": "小题正确率", "Wilson 95%": "Wilson 95% 区间"}  # fmt: skip


def _label(table: pd.DataFrame, head: list[str], columns: list[str]) -> None:
    """The table's caption (which grader is which) and its columns' titles in both languages."""
    table.attrs["caption"] = CAPTION
    table.attrs["caption_zh"] = CAPTION_ZH
    table.attrs["titles"] = {
        "zh": [_HEAD_ZH.get(c, c) for c in head] + [COLUMNS_ZH.get(c, c) for c in columns],
        "en": [*head, *columns],
    }


def headline(run: Any) -> dict[str, dict[str, Any]] | None:
    """Each grader's overall scoring rate of ``run`` (its points and questions), ``None`` without GAOKAO-Bench's
    questions: what summary.json and the page head a run of its records with."""
    found: GaokaoScores | None = run.gaokao
    return None if found is None else {name: g.overall.model_dump() for name, g in found.graders.items()}


def with_units(tables: dict[str, pd.DataFrame], runs: list[Any]) -> dict[str, pd.DataFrame]:
    """``tables`` naming their unit where a run counts GAOKAO-Bench's records (``Run.unit``): each other table with
    rows says so in its caption, and where every run does, the scoring rate in points (the paper's unit) comes
    first."""
    counted = [run.id for run in runs if run.unit == "records"]
    if not counted:
        return tables
    names = ", ".join(counted)
    note = (
        f"GAOKAO-Bench runs ({names}) count records here: a record holds one or more questions (an English cloze "
        "record 20) and counts right when all of them are; their paper's unit, the scoring rate in points, is in the "
        "GAOKAO-Bench tables."
    )
    note_zh = (
        f"GAOKAO-Bench 的运行（{names}）在此按记录计数：一条记录含一道或多道小题（一篇英语完形填空 20 道），全部答对才算对；"
        "论文的口径（按分值计的得分率）见 GAOKAO-Bench 的表格。"
    )
    for name, table in tables.items():
        if name.startswith("gaokao_") or table.empty:
            continue
        caption = table.attrs.get("caption")
        table.attrs["caption_zh"] = " ".join(filter(None, [table.attrs.get("caption_zh", caption), note_zh]))
        table.attrs["caption"] = " ".join(filter(None, [caption, note]))
    if len(counted) < len(runs):
        return tables
    first = {name: table for name, table in tables.items() if name.startswith("gaokao_")}
    return first | {name: table for name, table in tables.items() if name not in first}
