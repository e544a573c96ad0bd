"""Every figure a report prints is what its records say, recounted here from records.jsonl alone.

Found by recounting the reports of replayed runs on the shared CK12, CMMLU and C-Eval banks: the
CMMLU-style category table counted a judgment question as one item while every other table counted its
statements, and CK12's Table 1 printed "asked / in bank 0 / 0" for a run of a bank with no arts / science
subjects.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from reports import write_report
from tests._runs import Answer, question, write_bank, write_run


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def _recount(run: Path) -> dict[str, tuple[int, int]]:
    """Per subject, (right statements or questions, counted), judgment per statement: from records.jsonl only."""
    counts: dict[str, tuple[int, int]] = {}
    for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["parse_status"] not in ("ok", "unparsed"):
            continue
        if record["type"] == "judgment":
            got = record["extracted"] or []
            right, of = sum(g == e for g, e in zip(record["gold"], got, strict=False)), len(record["gold"])
        else:
            right, of = int(bool(record["correct"])), 1
        before = counts.get(record["subject"], (0, 0))
        counts[record["subject"]] = (before[0] + right, before[1] + of)
    return counts


def test_the_category_table_counts_judgment_statements_as_every_other_table(tmp_path: Path) -> None:
    # 数学: a single choice right, a judgment of two statements with one right; 语文: one right of two.
    qs = [
        question("s1", "数学", "函数", "一次函数"),
        question("j1", "数学", "函数", "一次函数", "judgment", options=["甲", "乙"], answer=[True, False]),
        question("c1", "语文", "阅读", "古诗"),
        question("c2", "语文", "阅读", "古诗"),
    ]
    bank = write_bank(tmp_path / "bank", qs)
    answers = {
        "s1": Answer(True),
        "j1": Answer(False, output="正确答案是：对对", extracted=[True, True], extra={"partial": 0.5}),
        "c1": Answer(True),
        "c2": Answer(False, extracted=["B"]),
    }
    run = write_run(tmp_path / "run", {q.id: q for q in qs}, answers, bank=bank)
    write_report([run], tmp_path / "report", plots=False)
    recount = _recount(run)
    math_acc, arts_acc = recount["数学"][0] / recount["数学"][1], recount["语文"][0] / recount["语文"][1]
    assert (math_acc, arts_acc) == (2 / 3, 1 / 2)  # per statement: 1 + 1 of 1 + 2
    (row,) = _rows(tmp_path / "report" / "tables" / "cmmlu_categories.csv")
    # Before: science 50.0 (the judgment question one wrong item: 1 of 2) and the average 50.0.
    assert (row["science"], row["arts"]) == (f"{100 * math_acc:.1f}", f"{100 * arts_acc:.1f}")
    assert row["average (macro over subjects)"] == f"{100 * (math_acc + arts_acc) / 2:.1f}"
    (root,) = [r for r in _rows(tmp_path / "report" / "nodes.csv") if r["slice"] == "all" and r["node"] == "all"]
    assert f"{100 * float(root['acc_macro']):.1f}" == row["average (macro over subjects)"]


def test_table1_is_left_empty_for_a_bank_without_arts_and_science(tmp_path: Path) -> None:
    # C-Eval's groups are STEM, Humanities, ...: CK12's arts / science columns hold none of its questions.
    q = question("v1", "计算机网络", "计算机网络", "计算机网络").model_copy(update={"source": "ceval", "group": "STEM"})
    run = write_run(tmp_path / "run", {"v1": q}, {"v1": Answer(True)})
    write_report([run], tmp_path / "report", plots=False)
    # Before: rows of "—" and "asked / in bank 0 / 0" for a run that was asked its one question.
    assert _rows(tmp_path / "report" / "tables" / "ck12_table1_type_by_mode.csv") == []
    (root,) = [r for r in _rows(tmp_path / "report" / "nodes.csv") if r["slice"] == "all" and r["node"] == "all"]
    assert (root["asked"], root["correct"]) == ("1", "1")
