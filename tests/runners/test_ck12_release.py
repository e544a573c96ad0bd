"""CK12's released judgment scorer, ported (#31 items 2 and 8): hand-counted cases in the release's own file
format, the rule through ``run`` and ``report``, and, when the release is at hand, its published figure
recomputed both by the released code and by k12eval.

The release has no licence file, so none of its text is copied here: the records below are written for this
test in the layout of its ``eval_results/*.json`` (a CK12 record plus ``response``). The reproduction test reads
the release itself from ``$K12EVAL_CK12_RELEASE`` (its ``code/release_code_aaai_ck12`` folder, as cloned from
github.com/tal-tech/chinese-k12-evaluation) and is skipped without it.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.ck12_release import release_judgment, release_verdicts
from tests.importer_helpers import ck12_record, write_jsonl

_JUDGED = {"task_type": "判断", "task_subject": "数学", "task_grade": "小学"}
_DOMAIN = ["小学", "数学", "知识点", "数的认识", "比较大小"]

# (gold, response, released scorer: right / counted, k12eval per statement: right / statements, per item)
CASES = [
    ("TFTFF", "FTFF FTFF", (2, 5), (0, 5), False),  # 8 verdicts for 5 statements: the release zips the first 5
    ("F", "1.  2.  3.", (0, 0), (0, 1), False),  # the format echoed, no verdict: the release counts nothing
    ("TF", "1. 正确 2. 错误", (0, 1), (2, 2), True),  # no T/F: the release finds only 错 (正确 holds no 对)
    ("F", "The answer is 错", (0, 1), (1, 1), True),  # the T of "The" is the release's verdict
    ("T", "不对", (1, 1), (0, 1), False),  # 不对 holds 对: a T to the release
    ("TT", "√×", (1, 2), (1, 2), False),
]


def _records() -> list[dict[str, object]]:
    records = []
    for i, (gold, response, *_) in enumerate(CASES):
        options = [f"{n + 1}.自编判断{i}-{n}．（   ）\n" for n in range(len(gold))]
        record = ck12_record(
            id=f"j{i}", prompt="判断．\n", answer_option=options, answer=gold, knowledge_domain=_DOMAIN
        )
        records.append({**record, **_JUDGED, "response": response})
    return records


@pytest.mark.parametrize(("gold", "response", "release", "statements", "item"), CASES)
def test_the_released_count_by_hand(
    gold: str, response: str, release: tuple[int, int], statements: tuple[int, int], item: bool
) -> None:
    assert release_judgment([g == "T" for g in gold], response) == release


def test_verdicts_are_tried_letters_first_then_characters_then_marks() -> None:
    assert release_verdicts("对 T") == [True]  # a letter anywhere wins over every character
    assert release_verdicts("错 √") == [False]
    assert release_verdicts("1.√\n2.×") == [True, False]
    assert release_verdicts("") == []


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _replayed(results: Path, tmp_path: Path) -> Path:
    """``results`` (a CK12 result file) replayed against itself as the bank, as a user would."""
    bank = tmp_path / "bank" / "小学" / "数学" / "判断.jsonl"
    bank.parent.mkdir(parents=True, exist_ok=True)
    bank.write_text(results.read_text(encoding="utf-8"), encoding="utf-8")
    run = tmp_path / "run"
    _cli("run", str(tmp_path / "bank"), "-m", str(results), "-b", "replay", "-o", str(run))
    return run


def _rules_row(run: Path, out: Path, *flags: str) -> tuple[dict[str, str], str]:
    printed = _cli("report", str(run), "-o", str(out), "--no-plots", *flags)
    with (out / "tables" / "ck12_judgment_rules.csv").open(encoding="utf-8-sig") as handle:
        (row,) = list(csv.DictReader(handle))
    return row, printed


@pytest.mark.slow
def test_every_rule_through_run_and_report(tmp_path: Path) -> None:
    results = write_jsonl(tmp_path / "chatglm2_zero_shot.json", _records())
    run = _replayed(results, tmp_path)
    got = {r["question_id"]: r for r in map(json.loads, (run / "records.jsonl").read_text("utf-8").splitlines())}
    for i, (_, _, _, (right, statements), item) in enumerate(CASES):
        record = got[f"j{i}"]
        assert record["correct"] is item, record
        assert round((record["partial"] or 0) * statements) == right, record
    row, _ = _rules_row(run, tmp_path / "report")
    release = [sum(c[2][k] for c in CASES) for k in (0, 1)]
    statements = [sum(c[3][k] for c in CASES) for k in (0, 1)]
    assert row["ck12-release n"] == f"{release[0]} / {release[1]}" == "4 / 10"
    assert row["per-statement n"] == f"{statements[0]} / {statements[1]}" == "4 / 12"
    assert row["per-item n"] == f"{sum(c[4] for c in CASES)} / {len(CASES)}" == "2 / 6"
    # The rule chosen for the tables reaches the printed overall, and run printed what report prints.
    summary = json.loads((run / "summary.json").read_text("utf-8"))
    assert (summary["all"]["units_right"], summary["all"]["units"]) == (4, 12)
    _, printed = _rules_row(run, tmp_path / "release", "--judgment", "ck12-release")
    assert "10 scored (judgment by CK12's released scorer), accuracy 40.0%" in printed
    assert "6 of 6 questions asked" in printed


RELEASE = os.environ.get("K12EVAL_CK12_RELEASE")


def _released_evaluator(folder: Path) -> types.ModuleType:
    """The release's own ``evaluators/evaluator.py``, imported from where it lies (never copied)."""
    spec = importlib.util.spec_from_file_location("ck12_released_evaluator", folder / "evaluators" / "evaluator.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.pop(spec.name, None)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.skipif(not RELEASE, reason="set K12EVAL_CK12_RELEASE to the release's code/release_code_aaai_ck12")
def test_the_released_chatglm2_judgment_figure(tmp_path: Path) -> None:
    """The release's ChatGLM2 zero-shot answers (800 primary-school math judgment questions): its ``metric.py``
    prints 1,367 / 2,357 = 58.0 %; ``report --judgment ck12-release`` prints the same, question by question."""
    folder = Path(str(RELEASE))
    results = folder / "eval_results" / "chatglm2_zero_shot.json"
    evaluator = _released_evaluator(folder)
    args = types.SimpleNamespace(
        few_shot_examples_file_path=str(folder / "few_shot_examples.json"),
        few_shot_examples_cot_file_path=str(folder / "few_shot_cot_examples.json"),
    )
    scorer = evaluator.Evaluator(args)
    lines = results.read_text(encoding="utf-8").splitlines()
    for line in lines:
        record = json.loads(line)
        before = dict(scorer.total_count.get("判断", {"correct_count": 0, "total_count": 0}))
        scorer.get_metrics(record)
        after = scorer.total_count["判断"]
        ours = release_judgment([g == "T" for g in record["answer"]], record["response"])
        counted = (after["correct_count"] - before["correct_count"], after["total_count"] - before["total_count"])
        assert ours == counted, record["id"]
    assert scorer.total_count["判断"] == {"correct_count": 1367, "total_count": 2357}

    run = _replayed(results, tmp_path)
    row, printed = _rules_row(run, tmp_path / "report", "--judgment", "ck12-release")
    assert row["ck12-release n"] == "1,367 / 2,357" and row["ck12-release"] == "58.0 (56.0–60.0)"
    # 390 / 2,939 and 118 / 800 before the judgment audit: five one-statement answers "1. T\n2. F\n3. F\n4. T\n5. F"
    # are now read by their number 1, the verdict the release also reads (its first); one, the instruction echoed
    # ("1. 运算顺序一样的回答正确，不一样的回答错误。" per statement), is no longer read as 正确 each (release: 错).
    assert row["per-statement n"] == "391 / 2,939" and row["per-item n"] == "120 / 800"
    assert "2357 scored (judgment by CK12's released scorer), accuracy 58.0%" in printed
    # Where the rules part (docs/report.md): the answers k12eval reads no verdict per statement from.
    records = [json.loads(line) for line in (run / "records.jsonl").read_text("utf-8").splitlines()]
    unread = [r for r in records if r["parse_status"] == "unparsed"]
    silent = [r for r in unread if not release_verdicts(r["output"])]
    assert (len(unread), len(silent)) == (528, 160)
    assert sum(r["output"].strip() == "FTFF FTFF" for r in unread) == 119
