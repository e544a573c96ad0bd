"""GAOKAO-Bench's own result files replayed (#31 item 7): ``k12eval run`` gives the release's scoring rate.

The release (OpenLMLab/GAOKAO-Bench, Apache-2.0) keeps GPT-4-0314's answers in ``Results/gpt_4_0314_obj/``,
one ``gpt-4-0314_<keyword>.json`` per data file. The files below are written here in that format, with
invented outputs whose points were worked by hand against the release's ``Bench/bench_function.py`` and
``Bench/OBJ_score_evaluation.py``. ``test_the_real_release_*`` replays the release's own files when
``K12EVAL_GAOKAO_DATA`` names its ``Data/`` folder (``k12eval data pull gaokao``, ``k12eval data path gaokao``):
they lie beside it, in ``../Results/gpt_4_0314_obj``.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from k12eval.cli import app
from runners.backends.harness_match import percent_alike
from tests.kg.test_importers_gaokao import MATH, release

MODEL = "gpt-4-0314"
OUTPUTS: dict[str, list[tuple[str, list[str]]]] = {
    # keyword -> (model_output, the release's model_answer) of each question of tests.kg.test_importers_gaokao's bank
    "2010-2022_Math_I_MCQs": [
        ("【解析】集合有两个元素。<eoe>\n【答案】C <eoa>", ["C"]),  # right: 5 and 5
        # k12eval reads the marked C; the release the last capital A-D, the A of "DNA" read backwards: 5 and 0
        ("【解析】乙正确。<eoe>\n【答案】C <eoa>\n（此题与 DNA 无关）", ["A"]),
        ("【解析】表中实验二能达到目的。<eoe>\n【答案】D <eoa>", ["D"]),  # right: 5 and 5
    ],
    "2010-2022_Chinese_Modern_Lit": [("（1）【答案】 A <eoa>\n（2）【答案】 B <eoa>", ["A", "B"])],  # 3 of 6
    "2012-2022_English_Cloze_Test": [("【答案】 C F A G D <eoa>", ["C", "F", "A", "G", "D"])],  # 8 of 10
    "2010-2022_Physics_MCQs": [("【解析】乙对。<eoe>\n【答案】 B <eoa>", ["B"])],  # some letters: 3 of 6
}


def results_folder(
    root: Path,
    data: Path,
    edit: dict[str, str] | None = None,
    outputs: dict[str, list[tuple[str, list[str]]]] = OUTPUTS,
) -> Path:
    """``Results/gpt_4_0314_obj`` in the release's format for the bank at ``data``; ``edit`` replaces question texts
    (by id) as a release that corrected its data after the outputs were made would leave them; ``outputs``: each
    file's (model_output, model_answer) pairs, :data:`OUTPUTS` unless given."""
    folder = root / "Results" / "gpt_4_0314_obj"
    folder.mkdir(parents=True)
    for keyword, answers in outputs.items():
        bank = json.loads((data / "Objective_Questions" / f"{keyword}.json").read_text("utf-8"))["example"]
        examples = []
        for item, (output, recorded) in zip(bank, answers, strict=True):
            question = (edit or {}).get(f"gaokao/{keyword}/{item['index']}", item["question"])
            examples.append(
                {
                    "index": item["index"],
                    "year": item["year"],
                    "category": item["category"],
                    "score": item["score"],
                    "question": question.strip() + "\n",
                    "standard_answer": item["answer"],
                    "analysis": item["analysis"],
                    "model_answer": recorded,
                    "model_output": output,
                }
            )
        document = {"keyword": keyword, "model_name": MODEL, "prompt": "请你做一道选择题。\n", "example": examples}
        (folder / f"{MODEL}_{keyword}.json").write_text(json.dumps(document, ensure_ascii=False, indent=4), "utf-8")
    (folder / "result").mkdir()  # the release's own scores, beside the outputs: not a result file
    (folder / "result" / "correction_score.json").write_text('{"model_name": "gpt-4-0314"}', "utf-8")
    return folder


def replay(data: Path, answers: Path, out: Path, *more: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["run", str(data), "-b", "replay", "-m", MODEL, "-B", f"path={answers}",
                                      "-o", str(out), "-q", *more])  # fmt: skip
    assert result.exit_code == 0, result.output
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text("utf-8"))
    summary["printed"] = result.output
    return summary


def test_the_release_results_replay_onto_their_questions_and_give_its_scoring_rate(tmp_path: Path) -> None:
    data = release(tmp_path)
    summary = replay(data, results_folder(tmp_path, data), tmp_path / "run")
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text("utf-8").splitlines()]
    assert len(records) == 6 and {r["harness"]["matched_by"] for r in records} == {"position"}
    assert json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))["harness"]["format"] == "gaokao"
    gaokao = summary["gaokao"]
    assert (gaokao["records"], gaokao["asked"]) == (6, 6)
    release_grader, ours = gaokao["graders"]["gaokao-release"], gaokao["graders"]["k12eval"]
    # points: math 5+0+5 (the release) or 15, Chinese 3 of 6, the cloze 8 of 10, physics 3 of 6; of 37 in all
    assert (release_grader["overall"]["earned"], release_grader["overall"]["possible"]) == (24, 37)
    assert (ours["overall"]["earned"], ours["overall"]["possible"]) == (29, 37)
    # questions as the release counts them: one per answer letter, 11; right: 7 and 8 (physics' B is not BD)
    assert (release_grader["overall"]["right"], ours["overall"]["right"], ours["overall"]["questions"]) == (7, 8, 11)
    assert {c: r["earned"] for c, r in release_grader["columns"].items()} == {
        "Chinese": 3, "Eng.": 8, "Sci. Math": 10, "Phys.": 3
    }  # fmt: skip
    assert release_grader["files"]["2010-2022_Physics_MCQs"]["rate"] == 0.5
    assert gaokao["same_answer"] == {"records": 6, "same": 5}
    assert gaokao["recorded"] == {"records": 6, "same": 6}  # the port reads what the release recorded
    assert "gaokao-release: 24/37 points = 64.9%" in " ".join(summary["printed"].split())


def test_a_question_the_release_corrected_later_keeps_its_answer_and_says_so(tmp_path: Path) -> None:
    data = release(tmp_path)
    edited = MATH.replace("的元素个数为", "的元素的个数为")  # the outputs were made before a one-character fix
    answers = results_folder(tmp_path, data, {"gaokao/2010-2022_Math_I_MCQs/0": edited})
    replay(data, answers, tmp_path / "run")
    records = {
        r["question_id"]: r
        for r in map(json.loads, (tmp_path / "run" / "records.jsonl").read_text("utf-8").splitlines())
    }
    matched = records["gaokao/2010-2022_Math_I_MCQs/0"]["harness"]["matched_by"]
    assert matched.startswith("position, text edited (") and matched.endswith("% alike)")


def test_an_edited_text_never_reads_as_100_percent_alike() -> None:
    # The release's corrected questions are 97.2-99.9 % alike; rounding printed two of them "100.0% alike".
    assert [percent_alike(r) for r in (0.972, 0.9861, 0.99964, 0.99999, 1.0)] == [
        "97.2%", "98.6%", "99.9%", "99.9%", "100.0%"
    ]  # fmt: skip


def test_another_question_at_a_position_stops_the_replay_naming_the_file(tmp_path: Path) -> None:
    data = release(tmp_path)
    answers = results_folder(tmp_path, data, {"gaokao/2010-2022_Math_I_MCQs/0": "已知函数 f(x)=x^2+1，求 f(2) 的值。"})
    result = CliRunner().invoke(app, ["run", str(data), "-b", "replay", "-m", MODEL, "-B", f"path={answers}",
                                      "-o", str(tmp_path / "run"), "-q"])  # fmt: skip
    assert result.exit_code == 2
    assert f"{MODEL}_2010-2022_Math_I_MCQs.json (record 0), field 'question'" in " ".join(result.output.split())
    assert "does not match bank question 'gaokao/2010-2022_Math_I_MCQs/0'" in " ".join(result.output.split())


def test_a_folder_without_result_files_is_refused_as_gaokao(tmp_path: Path) -> None:
    data = release(tmp_path)
    result = CliRunner().invoke(app, ["run", str(data), "-b", "replay", "-m", MODEL, "-B", f"path={data}",
                                      "-B", "format=gaokao", "-o", str(tmp_path / "run"), "-q"])  # fmt: skip
    assert result.exit_code == 2 and "no GAOKAO-Bench result files here" in " ".join(result.output.split())


RELEASE = os.environ.get("K12EVAL_GAOKAO_DATA")
README = {"Chinese": 0.539, "Eng.": 0.931, "Sci. Math": 0.537, "Hum. Math": 0.633, "Phys.": 0.555,
          "Chem.": 0.444, "Biol.": 0.807, "Poli.": 0.759, "Hist.": 0.756, "Geog.": 0.800}  # fmt: skip
"""GPT-4-0314's row of the release README's table of objective scoring rates (typed from the README)."""


@pytest.mark.slow
@pytest.mark.skipif(not RELEASE, reason="K12EVAL_GAOKAO_DATA (the release's Data/ folder) is not set")
def test_the_real_release_results_give_the_readmes_figures(tmp_path: Path) -> None:
    assert RELEASE is not None
    data = Path(RELEASE)
    summary = replay(data, data.parent / "Results" / "gpt_4_0314_obj", tmp_path / "run")
    assert summary["status"]["failed"] == 0 and summary["questions"] == 1781
    gaokao = summary["gaokao"]
    overall = gaokao["graders"]["gaokao-release"]["overall"]
    assert (overall["earned"], overall["possible"], overall["questions"]) == (7000, 9702, 2944)  # README: 72.2 %
    columns = gaokao["graders"]["gaokao-release"]["columns"]
    assert {c: round(r["rate"], 3) for c, r in columns.items()} == README
    assert gaokao["recorded"] == {"records": 1781, "same": 1781}
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text("utf-8").splitlines()]
    edited = sorted(r["harness"]["matched_by"] for r in records if r["harness"]["matched_by"] != "position")
    assert edited == [f"position, text edited ({p}% alike)" for p in ("97.2", "98.5", "99.9", "99.9")]  # the docs
    # What the user reads first is the README's figure, in its unit; the 1,781 are records, holding 2,944 questions
    printed = " ".join(summary["printed"].split())
    assert printed.index("gaokao-release: 7000/9702 points = 72.2%") < printed.index("accuracy over the 1781 record(s)")
    assert "2944 question(s) in the 1781 record(s) asked" in printed and "1781 question(s)" not in printed
    report = CliRunner().invoke(app, ["report", str(tmp_path / "run"), "-o", str(tmp_path / "report"), "--no-plots"])
    assert report.exit_code == 0, report.output
    line = " ".join(report.output.split())
    assert "run: GAOKAO-Bench scoring rate 7000/9702 points = 72.2% (70.1%-74.2%) by the release's scorer" in line
    assert "1781 record(s) (2944 question(s)) scored" in line and "1781 of 1781 records asked" in line


def test_a_gaokao_run_heads_with_the_papers_points_and_counts_records_as_records(tmp_path: Path) -> None:
    """The table counts the release's records (6 here, holding 11 questions: the cloze holds 5, the reading 2), the
    paper counts points: the run's first figure is the scoring rate, and no line calls a record a question."""
    data = release(tmp_path)
    summary = replay(data, results_folder(tmp_path, data), tmp_path / "run")
    assert (summary["unit"], summary["questions"]) == ("records", 6)
    printed = " ".join(summary["printed"].split())
    headline = printed.index("GAOKAO-Bench scoring rate")
    assert headline < printed.index("┏") and "points, the paper's unit" in printed
    assert "accuracy over the 6 record(s) asked of 6 selected" in printed
    assert "11 question(s) in the 6 record(s) asked" in printed
    assert "6 question(s)" not in printed and "records ┃" in printed
    assert "unparsed rate 0.0% of records" in printed


def test_run_and_report_print_a_gaokao_runs_points_alike(tmp_path: Path) -> None:
    """run and report print the points phrase of one function (runners.gaokao_score.points_text; each formatted its
    own before) from the same unrounded figures: the release grader's points with their interval, k12eval's points.
    Before, report formatted summary.json's 4-decimal values: the interval's low end 0.38545 printed 38.5 % by run
    and 38.6 % (from 0.3855) by report."""
    data = release(tmp_path)
    summary = replay(data, results_folder(tmp_path, data), tmp_path / "run")
    ran = " ".join(summary["printed"].split())
    release_points = re.search(r"gaokao-release: (\d+/\d+ points = [\d.]+% \([\d.]+%-[\d.]+%\));", ran)
    ours = re.search(r"k12eval: (\d+/\d+ points = [\d.]+%) \(", ran)
    assert release_points is not None and ours is not None, ran
    assert release_points.group(1).startswith("24/37 points = 64.9% (") and ours.group(1) == "29/37 points = 78.4%"
    report = CliRunner().invoke(app, ["report", str(tmp_path / "run"), "-o", str(tmp_path / "report"), "--no-plots"])
    assert report.exit_code == 0, report.output
    line = " ".join(report.output.split())
    assert f"scoring rate {release_points.group(1)} by the release's scorer, {ours.group(1)} by k12eval's" in line
