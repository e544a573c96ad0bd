"""Xiezhi's tables: results per discipline, each question under every one of its labels, and per split.

A Xiezhi question carries several discipline labels (``extra["labels"]``, e.g. 理学, 数学, 应用数学,
or two 门类 at once); the graph places it at one node, but the per-discipline table counts it
under each label, as Xiezhi's per-discipline results do. The test set (Xiezhi-Specialty or
Xiezhi-Interdiscipline, ``extra["xiezhi_set"]``; the table's ``split`` column) is the paper's: 3 disciplines
or fewer, or 4 or more (:func:`kg.importers.xiezhi.xiezhi_split`). ``extra["split"]`` is the release's split
(test or train), which every question of a run shares.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from reports.tables import DASH, pct

SPLIT_NAMES = {"specialty": "Specialty", "interdiscipline": "Interdiscipline"}


def xiezhi_coordinates(runs: Iterable[Any], frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s rows of Xiezhi questions with two more columns: ``labels`` (a tuple) and ``split`` (or ``None``)."""
    found: dict[tuple[str, str], tuple[tuple[str, ...], str | None]] = {}
    for run in runs:
        for qid, question in run.questions.items():
            labels = question.extra.get("labels") if question.source == "xiezhi" else None
            if isinstance(labels, list) and labels:
                split = question.extra.get("xiezhi_set")
                found[(run.id, qid)] = (tuple(str(x) for x in labels), split if isinstance(split, str) else None)
    if not len(frame) or not found:  # no Xiezhi question: no key of a million rows to look up
        return frame.iloc[:0].assign(labels=[], split=[])
    keys = list(zip(frame["run"], frame["question_id"], strict=True))
    keep = [key in found for key in keys]
    part = frame[keep]
    chosen = [found[key] for key, kept in zip(keys, keep, strict=True) if kept]
    return part.assign(labels=[c[0] for c in chosen], split=[c[1] for c in chosen])


def _row(sub: pd.DataFrame) -> dict[str, object]:
    scored = sub[sub["scored"]]
    ranked = sub["rank"].dropna() if "rank" in sub else pd.Series(dtype=float)
    return {
        "n": len(scored),
        "accuracy": pct(float(scored["correct"].mean())) if len(scored) else DASH,
        "MRR": f"{(1 / ranked).mean():.3f}" if len(ranked) else DASH,
    }


def discipline_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """Per run and discipline label: questions, accuracy and MRR, a question counted under each of its labels.

    ``frame`` is :func:`xiezhi_coordinates`'s. Rows run by run, the most asked disciplines first.
    """
    if frame.empty:
        return pd.DataFrame()
    exploded = frame.explode("labels").rename(columns={"labels": "discipline"})
    rows = []
    for (run, discipline), sub in exploded.groupby(["run", "discipline"], sort=False):
        rows.append({"run": run, "model": sub["model"].iloc[0], "discipline": discipline, **_row(sub)})
    table = pd.DataFrame(rows)
    order = {run: i for i, run in enumerate(dict.fromkeys(frame["run"]))}
    table = table.assign(_run=table["run"].map(order)).sort_values(
        ["_run", "n", "discipline"], ascending=[True, False, True], kind="stable"
    )
    return table.drop(columns="_run").reset_index(drop=True)


def split_scores(frame: pd.DataFrame) -> pd.DataFrame:
    """Per run: Xiezhi-Specialty vs Xiezhi-Interdiscipline (questions, accuracy, MRR); ``—`` for a split not run."""
    known = frame[frame["split"].notna()] if not frame.empty else frame
    if known.empty:
        return pd.DataFrame()
    rows = []
    for run, sub in known.groupby("run", sort=False):
        row: dict[str, object] = {"run": run, "model": sub["model"].iloc[0], "mode": sub["mode"].iloc[0]}
        for key, name in SPLIT_NAMES.items():
            cells = _row(sub[sub["split"] == key])
            row[f"{name} n"] = cells["n"]
            row[f"{name} accuracy"] = cells["accuracy"]
            row[f"{name} MRR"] = cells["MRR"]
        rows.append(row)
    return pd.DataFrame(rows)
