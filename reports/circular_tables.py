"""CircularEval's table: each circular run's circular accuracy beside the plain one, as OpenCompass names them.

The figures are :func:`runners.circular.circular_stats` over the run's records, the function ``summary.json``'s
``circular`` comes from: ``perf_circular`` (right in every rotation: *the* circular accuracy), ``acc_origin``
(the original order alone: the plain accuracy), ``acc_circular`` (every rotation counted as a question) and
``more_{k}_circular``, each a count with its 95 % Wilson interval. Only questions asked in every rotation
count; the others are counted in ``incomplete`` and the caption says how many; a question with no rotation
asked yet is in neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from reports.tables import DASH, pct
from runners.circular import CIRCULAR, Rate, circular_stats

_TITLES_ZH = {"run": "运行", "questions": "每种轮换都已作答的题数", "incomplete": "轮换未答全的题数",
              "perf_circular": "循环评测正确率 perf_circular（每种轮换都对）", "acc_origin": "原顺序正确率 acc_origin",
              "acc_circular": "逐轮换正确率 acc_circular"}  # fmt: skip


CAPTION = (
    "OpenCompass's CircularEval: each single-choice question asked once per rotation of its options; perf_circular "
    "counts a question right only when every rotation is, acc_origin is the original order alone (the plain "
    "accuracy), acc_circular counts every rotation as a question. Cells: right/asked = % (95 % Wilson)."
)
CAPTION_ZH = (
    "OpenCompass 的循环评测（CircularEval）：每道单选题按选项的每种轮换各问一次；perf_circular 要求每种轮换都答对，"
    "acc_origin 只看原顺序（即普通正确率），acc_circular 把每种轮换各算一题。格式：答对/作答 = 百分比（95% 威尔逊区间）。"
)


def circular_tables(runs: Iterable[Any]) -> dict[str, pd.DataFrame]:
    """``circular``: one row per circular run (empty without one)."""
    rows = []
    most = 0
    for run in runs:
        if run.header.variant != CIRCULAR:
            continue
        stats = circular_stats((r.question_id, r.correct) for r in run.records)
        if stats is None:
            continue
        most = max(most, *stats.at_least, 0)
        row = {"run": run.label, "questions": str(stats.questions), "incomplete": str(stats.incomplete)}
        row |= {"perf_circular": _cell(stats.circular), "acc_origin": _cell(stats.origin)}
        row |= {"acc_circular": _cell(stats.rotations)}
        row |= {f"more_{k}_circular": _cell(rate) for k, rate in stats.at_least.items()}
        rows.append(row)
    columns = ["run", "questions", "incomplete", "perf_circular", "acc_origin", "acc_circular"]
    columns += [f"more_{k}_circular" for k in range(1, most + 1)]
    table = pd.DataFrame(rows, columns=columns).fillna(DASH)
    incomplete = sum(int(row["incomplete"]) for row in rows)
    notes, notes_zh = [], []
    if incomplete:
        notes.append(f"{incomplete} question(s) not yet asked in every rotation are left out (incomplete).")
        notes_zh.append(f"有 {incomplete} 道题的轮换还没有答全，未计入（见“轮换未答全的题数”）。")
    table.attrs["caption"] = " ".join([CAPTION, *notes])
    table.attrs["caption_zh"] = "".join([CAPTION_ZH, *notes_zh])
    table.attrs["titles"] = {
        "zh": [_TITLES_ZH[c] if c in _TITLES_ZH else f"至少 {c.split('_')[1]} 种轮换答对 {c}" for c in columns],
        "en": columns,
    }
    return {"circular": table}


def _cell(rate: Rate) -> str:
    if rate.accuracy is None or rate.low is None or rate.high is None:
        return f"{rate.correct}/{rate.n}"
    return f"{rate.correct}/{rate.n} = {pct(rate.accuracy)} ({pct(rate.low)}-{pct(rate.high)})"
