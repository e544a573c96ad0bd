"""k12eval's verdict against the harness's own, for answers replayed from lm-eval's samples (#34 item 2).

A replayed record keeps lm-eval's verdicts (``harness.verdicts``, :mod:`runners.backends.harness_verdicts`).
Two tables come of them:

- ``harness_agreement``: per run and task, the answers both graded, how many verdicts agree (a rate with
  its Wilson interval), how many k12eval alone counts right and how many the harness alone, and each
  grader's accuracy over those answers;
- ``harness_disagreements``: every answer on which they differ, with both golds and both answers read
  (k12eval's extraction, the harness's filtered answer), so a reader can see which one is wrong.

The harness's verdict is the run's ``--grader harness:METRIC,FILTER`` when it was graded so, else the
first metric of the first filter lm-eval recorded. Runs without verdicts give empty tables.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd

from kg.intervals import wilson_interval
from runners.backends.harness_logs import task_of
from runners.backends.harness_verdicts import Grader, chosen_verdict, right_or_wrong
from runners.records import RunRecord

SHOWN = 200
"""Most characters of an answer a disagreement row shows (a ``none`` filter's answer is the whole output)."""
AGREEMENT_COLUMNS = ["run", "task", "metric", "n", "agree", "agreement", "agreement_lo", "agreement_hi",
                     "only_k12eval_right", "only_harness_right", "acc_k12eval", "acc_harness"]  # fmt: skip
DISAGREEMENT_COLUMNS = ["run", "task", "question", "where", "gold", "target", "extracted", "filtered",
                        "k12eval", "harness"]  # fmt: skip


def verdict_pair(record: RunRecord, grader: Grader) -> tuple[bool, bool, str] | None:
    """``(k12eval's verdict, the harness's, the metric read)`` of a replayed record; ``None`` unless both graded."""
    harness = record.harness
    if harness is None or record.parse_status in ("failed", "skipped"):
        return None
    value, metric = chosen_verdict(harness, grader)
    verdict = right_or_wrong(value) if value is not None else None
    own = harness.get("k12eval_correct", record.correct) if "graded" in harness else record.correct
    if verdict is None or not isinstance(own, bool):
        return None
    return own, verdict, metric


def agreement_tables(runs: list[Any]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(harness_agreement, harness_disagreements)`` over ``runs`` (:class:`reports.runs.Run`)."""
    rows: list[dict[str, Any]] = []
    listed: list[dict[str, Any]] = []
    for run in runs:
        grader = Grader.parse(run.header.grader)
        grader = grader if grader.name == "harness" else Grader("harness")
        by_task: dict[tuple[str, str], list[tuple[bool, bool]]] = defaultdict(list)
        for record in run.records:
            pair = verdict_pair(record, grader)
            if pair is None:
                continue
            own, theirs, metric = pair
            task = task_of(Path(str(record.harness.get("file", "")))) if record.harness else ""
            by_task[(task, metric)].append((own, theirs))
            if own != theirs:
                listed.append(_disagreement(run.id, task, record, grader, (own, theirs)))
        for (task, metric), pairs in sorted(by_task.items()):
            rows.append(_agreement_row(run.id, task, metric, pairs))
        if len(by_task) > 1:
            everything = [pair for pairs in by_task.values() for pair in pairs]
            rows.append(_agreement_row(run.id, "all", ", ".join(sorted({m for _, m in by_task})), everything))
    agreement = _captioned(
        pd.DataFrame(rows, columns=AGREEMENT_COLUMNS),
        "Answers replayed from lm-eval's samples that both k12eval and the harness graded: how often their "
        "verdicts agree (95 % Wilson interval), and the answers only one of them counts right.",
        "从 lm-eval 样本回放、k12eval 与评测框架都判过分的答案：两者判定一致的比例（95% 威尔逊区间），以及只有一方判对的题数。",
    )
    disagreements = _captioned(
        pd.DataFrame(listed, columns=DISAGREEMENT_COLUMNS),
        "Each replayed answer k12eval and the harness grade differently: k12eval's gold and extracted answer, "
        "the harness's target and filtered answer (at most 200 characters each).",
        "k12eval 与评测框架判定不同的每个回放答案：k12eval 的标准答案与抽取答案，评测框架的标准答案与过滤后的答案（各至多 200 字）。",
    )
    return agreement, disagreements


def _captioned(table: pd.DataFrame, caption: str, caption_zh: str) -> pd.DataFrame:
    table.attrs["caption"], table.attrs["caption_zh"] = caption, caption_zh
    return table


def _agreement_row(run: str, task: str, metric: str, pairs: list[tuple[bool, bool]]) -> dict[str, Any]:
    n = len(pairs)
    agree = sum(own == theirs for own, theirs in pairs)
    lo, hi = wilson_interval(agree, n)
    return {
        "run": run,
        "task": task,
        "metric": metric,
        "n": n,
        "agree": agree,
        "agreement": agree / n,
        "agreement_lo": lo,
        "agreement_hi": hi,
        "only_k12eval_right": sum(own and not theirs for own, theirs in pairs),
        "only_harness_right": sum(theirs and not own for own, theirs in pairs),
        "acc_k12eval": sum(own for own, _ in pairs) / n,
        "acc_harness": sum(theirs for _, theirs in pairs) / n,
    }


def _disagreement(
    run: str, task: str, record: RunRecord, grader: Grader, verdicts: tuple[bool, bool]
) -> dict[str, Any]:
    harness = record.harness or {}
    own, theirs = verdicts
    kept = [v for v in harness.get("verdicts") or [] if isinstance(v, dict)]
    chosen = next((v for v in kept if v.get("filter") == grader.filter), kept[0] if kept else {})
    where = f"{Path(str(harness.get('file', ''))).name}, line {harness.get('line', harness.get('record', '?'))}"
    return {
        "run": run,
        "task": task,
        "question": record.question_id,
        "where": where,
        "gold": _shown(record.gold),
        "target": _shown(harness.get("target")),
        "extracted": _shown(record.extracted),
        "filtered": _shown(chosen.get("filtered")),
        "k12eval": "right" if own else "wrong",
        "harness": "right" if theirs else "wrong",
    }


def _shown(value: Any) -> str:
    if value is None:
        return ""
    text = " | ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text[:SHOWN] + ("..." if len(text) > SHOWN else "")
