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

import pytest

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


def _replay_file(bank: Path, out: Path) -> Path:
    """Answers for every question of ``bank``: right, wrong or unreadable in turn, in k12eval's records format."""
    from kg.importers import load_questions

    lines = []
    for n, q in enumerate(load_questions(bank).questions):
        letters = [o.label for o in q.options] or ["A"]
        if q.type.value == "judgment":
            said = "".join(("对" if v else "错") if n % 3 else ("错" if v else "对") for v in q.answer)
        elif q.type.value == "fill_in_blank":
            said = ";".join(map(str, q.answer)) if n % 3 else "不知道"
        else:
            said = "".join(map(str, q.answer)) if n % 3 else letters[(n // 3) % len(letters)]
        text = "这道题我不会。" if n % 11 == 0 else f"正确答案是：{said}"
        lines.append(json.dumps({"question_id": q.id, "output": text}, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _recount_types(run: Path) -> dict[str, tuple[int, int, int, int]]:
    """Per type and ``all``: (records, asked, right units, units), from records.jsonl only."""
    counts: dict[str, list[int]] = {}
    for line in (run / "records.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for key in ("all", record["type"]):
            row = counts.setdefault(key, [0, 0, 0, 0])
            row[0] += 1
            if record["parse_status"] not in ("ok", "unparsed"):
                continue
            row[1] += 1
            if record["type"] == "judgment":
                share = record["partial"] if record["partial"] is not None else float(bool(record["correct"]))
                row[2] += round(share * len(record["gold"]))
                row[3] += len(record["gold"])
            else:
                row[2] += int(bool(record["correct"]))
                row[3] += 1
    return {key: (a, b, c, d) for key, (a, b, c, d) in counts.items()}


@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize(
    ("bank", "args"),
    [
        ("ck12/original_data", ["--limit", "0.15"]),
        ("cmmlu/test", []),
        ("ceval/dev", []),
        ("xiezhi/xiezhi_spec_chn.sample500.jsonl", []),
    ],
)
def test_every_printed_count_is_the_records_on_a_shared_bank(
    shared_data: Path, tmp_path: Path, bank: str, args: list[str]
) -> None:
    """``run``'s table and summary.json, the report's summary.json, nodes.csv and the page's run card, recounted."""
    from typer.testing import CliRunner

    from k12eval.cli import app

    path = shared_data / bank
    answers = _replay_file(path, tmp_path / "answers.jsonl")
    run, report = tmp_path / "run", tmp_path / "report"
    ran = CliRunner().invoke(app, ["run", str(path), "-b", "replay", "-m", str(answers), "-o", str(run), *args])
    assert ran.exit_code == 0, ran.output
    assert CliRunner().invoke(app, ["report", str(run), "-o", str(report), "--no-plots"]).exit_code == 0
    recount = _recount_types(run)
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    for key, part in [("all", summary["all"]), *summary["by_type"].items()]:
        assert (part["n"], part["scored"], part["units_right"], part["units"]) == recount[key], key
    for line in ran.stdout.splitlines():  # the terminal table: type, n, asked, accuracy, unparsed, failed
        cells = [c.strip() for c in line.replace("┃", "│").split("│") if c.strip()]
        if len(cells) == 6 and cells[1].isdigit():
            records, asked, right, units = recount[cells[0]]
            assert (int(cells[1]), int(cells[2]), cells[3]) == (records, asked, f"{100 * right / units:.1f}%")
    records, asked, right, units = recount["all"]
    page = json.loads((report / "summary.json").read_text(encoding="utf-8"))["runs"][0]
    assert (page["records"], page["asked"], page["correct"], page["n"]) == (records, asked, right, units)
    (root,) = [r for r in _rows(report / "nodes.csv") if r["slice"] == "all" and r["node"] == "all"]
    assert (int(root["records"]), int(root["asked"]), int(root["correct"]), int(root["n"])) == recount["all"]
    by_type = {r["slice_value"]: r for r in _rows(report / "nodes.csv") if r["slice"] == "type" and r["node"] == "all"}
    for key, (records, asked, right, units) in recount.items():
        if key != "all":
            row = by_type[key]
            assert (int(row["records"]), int(row["asked"]), int(row["correct"]), int(row["n"])) == (
                records, asked, right, units,
            ), key  # fmt: skip


def test_results_json_counts_what_summary_json_counts(tmp_path: Path) -> None:
    # Before: results.json counted a judgment question as one item (right only when every statement is) while
    # summary.json, the terminal and the report count its statements: 1/2 = 50 % beside 4/5 = 80 % for one run.
    from typer.testing import CliRunner

    from k12eval.cli import app
    from tests._runs import write_answers

    qs = [
        question("s1", "历史", "中国古代史", "隋唐"),
        question("j1", "历史", "中国古代史", "隋唐", "judgment", options=["甲", "乙"], answer=[True, False]),
    ]
    bank = write_bank(tmp_path / "bank", qs)
    answers = tmp_path / "answers.jsonl"
    write_answers(answers, ["s1"], "正确答案是：A")
    with answers.open("a", encoding="utf-8") as handle:  # one of its two statements right
        handle.write(json.dumps({"question_id": "j1", "output": "1. 对 2. 对"}, ensure_ascii=False) + "\n")
    run = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(bank), "-b", "replay", "-m", str(answers), "-o", str(run)])
    assert result.exit_code == 0, result.output
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert (summary["all"]["units_right"], summary["all"]["units"]) == (2, 3)  # s1, and j1's first statement
    shaped = json.loads((run / "results.json").read_text(encoding="utf-8"))
    (group,) = shaped["groups"].values()
    assert group["exact_match,k12eval"] == summary["all"]["accuracy"] == 2 / 3
    assert shaped["results"]["ck12_历史"]["exact_match,k12eval"] == summary["by_subject"]["历史"]["accuracy"]


def test_the_negation_table_counts_judgment_statements_as_the_nodes_do(tmp_path: Path) -> None:
    # Before: the analysis counted a judgment question as one wrong item (1 of 2 without negation) while
    # nodes.csv counted its statements (2 of 3).
    qs = [
        question("s1", "历史", "中国古代史", "隋唐", stem="唐朝的都城是哪里？"),
        question("j1", "历史", "中国古代史", "隋唐", "judgment", options=["甲", "乙"], answer=[True, False]),
        question("n1", "历史", "中国古代史", "隋唐", stem="下列说法不正确的是"),
    ]
    bank = write_bank(tmp_path / "bank", qs)
    answers = {
        "s1": Answer(True),
        "j1": Answer(False, output="1. 对 2. 对", extracted=[True, True], extra={"partial": 0.5}),
        "n1": Answer(False, extracted=["B"]),
    }
    run = write_run(tmp_path / "run", {q.id: q for q in qs}, answers, bank=bank)
    write_report([run], tmp_path / "report", plots=False)
    (row,) = _rows(tmp_path / "report" / "tables" / "analysis_negation.csv")
    assert (row["n_without"], row["acc_without"], row["n_with"], row["acc_with"]) == ("3", "66.7", "1", "0.0")
    assert row["share_with"] == "33.3"  # of the questions: one of three has a negation word


def test_the_report_line_names_the_judgment_rule_only_where_a_judgment_question_was_asked(tmp_path: Path) -> None:
    """A run whose one judgment question failed (no answer) asked none: its line said "(judgment per statement)"."""
    from typer.testing import CliRunner

    from k12eval.cli import app

    qs = [
        question("s1", "数学", "函数", "一次函数"),
        question("j1", "数学", "函数", "一次函数", "judgment", options=["甲", "乙"], answer=[True, False]),
    ]
    bank = write_bank(tmp_path / "bank", qs)
    answers = {"s1": Answer(True), "j1": Answer(None, status="failed", output="", extracted=None)}
    run = write_run(tmp_path / "run", {q.id: q for q in qs}, answers, bank=bank)
    said = CliRunner().invoke(app, ["report", str(run), "-o", str(tmp_path / "report")], env={"COLUMNS": "300"})
    assert said.exit_code == 0, said.output
    assert "run: 1 scored, accuracy 100.0%" in said.output and "judgment" not in said.output
    written = json.loads((tmp_path / "report" / "summary.json").read_text(encoding="utf-8"))["runs"][0]
    assert written["judgment_asked"] == 0
